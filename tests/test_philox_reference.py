"""The NumPy Philox4x32-10 that the CUDA random tests check the GPU kernels against
(tests/cuda/philox_reference.py), on Random123's published known-answer vectors."""

import numpy as np
import pytest

from tests.cuda.philox_reference import KNOWN_ANSWERS, philox4x32, stream, words64


@pytest.mark.parametrize("ctr, key, want", KNOWN_ANSWERS)
def test_known_answers(ctr, key, want):
    np.testing.assert_array_equal(philox4x32(ctr, key), np.array(want, np.uint32))


def test_vectorised_matches_one_at_a_time():
    ctrs = np.array([c for c, _, _ in KNOWN_ANSWERS], np.uint32)
    keys = np.array([k for _, k, _ in KNOWN_ANSWERS], np.uint32)
    np.testing.assert_array_equal(
        philox4x32(ctrs, keys), np.array([w for _, _, w in KNOWN_ANSWERS], np.uint32)
    )


def test_stream_layout():
    """Block t is the counter (offset + t mod 2**64, 0) under the seed, low words first;
    the counter wraps past 2**64 - 1."""
    seed, offset = 0x0123456789ABCDEF, 2**64 - 2
    w = stream(seed, offset, 3).reshape(3, 4)
    key = (seed & 0xFFFFFFFF, seed >> 32)
    for t, c in enumerate((2**64 - 2, 2**64 - 1, 0)):
        np.testing.assert_array_equal(w[t], philox4x32((c & 0xFFFFFFFF, c >> 32, 0, 0), key))
    assert stream(0, 0, 1).tolist() == list(KNOWN_ANSWERS[0][2])
    w64 = words64(seed, offset, 5)
    flat = stream(seed, offset, 3).astype(np.uint64)
    assert w64.tolist() == [int(flat[2 * i]) | int(flat[2 * i + 1]) << 32 for i in range(5)]
