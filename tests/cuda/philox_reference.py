"""A NumPy Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11) and the word stream of
Lucid's CUDA generator, for tests.

:func:`philox4x32` is the bijection itself; :func:`stream` the words a draw of ``blocks``
Philox calls reads: block :math:`t` is the counter :math:`(o + t \\bmod 2^{64}, 0)` (low
word first) under the key ``seed`` (low word first), four uint32 words each.
"""

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)

# Random123's tests/kat_vectors, the "philox4x32 10" lines: counter, key, output words
KNOWN_ANSWERS = [
    (
        (0x00000000, 0x00000000, 0x00000000, 0x00000000),
        (0x00000000, 0x00000000),
        (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8),
    ),
    (
        (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF),
        (0xFFFFFFFF, 0xFFFFFFFF),
        (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD),
    ),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


def philox4x32(ctr, key, rounds=10):
    """Philox4x32 of counters ``ctr`` (``(..., 4)`` uint32) under keys ``key``
    (``(..., 2)``, broadcasting): ``(..., 4)`` uint32."""
    ctr = np.asarray(ctr, dtype=np.uint64)
    key = np.asarray(key, dtype=np.uint64)
    c0, c1, c2, c3 = (ctr[..., i] for i in range(4))
    k0, k1 = key[..., 0], key[..., 1]
    for _ in range(rounds):
        p0, p1 = c0 * _M0, c2 * _M1  # exact: both factors are below 2**32
        c0, c1, c2, c3 = (p1 >> _32) ^ c1 ^ k0, p1 & _LOW, (p0 >> _32) ^ c3 ^ k1, p0 & _LOW
        k0, k1 = (k0 + _W0) & _LOW, (k1 + _W1) & _LOW
    return np.stack([c0, c1, c2, c3], -1).astype(np.uint32)


def stream(seed, offset, blocks):
    """The ``4 * blocks`` uint32 words of Philox calls at counters ``offset + t``
    (``t < blocks``, mod 2**64) under key ``seed``."""
    t = np.uint64(offset) + np.arange(blocks, dtype=np.uint64)  # wraps mod 2**64
    zero = np.zeros_like(t)
    ctr = np.stack([t & _LOW, t >> _32, zero, zero], -1)
    seed = np.uint64(seed)
    return philox4x32(ctr, np.array([seed & _LOW, seed >> _32])).reshape(-1)


def words64(seed, offset, n):
    """``n`` 64-bit words (low word first) of the stream: two per Philox call."""
    w = stream(seed, offset, -(-n // 2)).astype(np.uint64).reshape(-1, 2)
    return (w[:, 0] | (w[:, 1] << _32))[:n]
