"""The AmpPolicy of each op applied under ``lucid.amp.autocast``."""

import numpy as np
import pytest

import lucid
from lucid.ops.schema import AmpPolicy


def _rand(*shape, dtype=lucid.float32, grad=False):
    a = np.random.default_rng(0).standard_normal(shape)
    return lucid.tensor(a, dtype=dtype, requires_grad=grad)


def test_promote_runs_in_autocast_dtype_and_grads_keep_input_dtype():
    a, b = _rand(3, 4, grad=True), _rand(4, 5, grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        y = a @ b
    assert y.dtype is lucid.bfloat16
    y.float().sum().backward()
    assert a.grad.dtype is lucid.float32 and b.grad.dtype is lucid.float32
    ref = np.ones((3, 5), np.float32) @ b.detach().numpy().T
    np.testing.assert_allclose(a.grad.numpy(), ref, rtol=2e-2, atol=2e-2)


def test_force_fp32_upcasts_half_inputs():
    x = _rand(8, dtype=lucid.float16, grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.float16):
        y = x.exp()
    assert y.dtype is lucid.float32
    y.sum().backward()
    assert x.grad.dtype is lucid.float16
    np.testing.assert_allclose(x.grad.numpy().astype(np.float32),
                               np.exp(x.detach().numpy().astype(np.float32)), rtol=1e-2)


def test_keep_input_and_disabled_autocast():
    x = _rand(4, dtype=lucid.float16)
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        assert (x + x).dtype is lucid.float16
        assert lucid.amp.is_autocast_enabled()
        with lucid.amp.autocast("cpu", enabled=False):
            assert (_rand(2, 3) @ _rand(3, 2)).dtype is lucid.float32
    assert not lucid.amp.is_autocast_enabled()


def test_every_op_declares_a_policy():
    for name, cls in lucid.ops.registry.all_ops().items():
        assert isinstance(cls.schema_v1.amp_policy, AmpPolicy), name


def test_bad_autocast_arguments():
    with pytest.raises(lucid.errors.DTypeError, match="autocast"):
        lucid.amp.autocast("cpu", dtype=lucid.float32)
    with pytest.raises(lucid.errors.DTypeError, match="device_type"):
        lucid.amp.autocast("tpu")
