"""The op machinery fused ops rely on, proved on small ops defined here (not registered):
intermediates saved by ``dispatch`` (``saves_extra``), outputs marked non-differentiable
(``differentiable_outputs``), per-input saves, and the determinism switch."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DeterminismError
from lucid.ops.core.base import MultiOutputOp, UnaryOp
from lucid.ops.core.schema import AmpPolicy, OpSchema


class _StandardizeBackward(UnaryOp):
    r"""Test op: :math:`y = (x - \mu)\,r` over the last dim, :math:`r = 1/\sigma`; keeps
    :math:`\mu` and :math:`r` from the forward instead of recomputing them.

    .. math:: \partial x = r\,(g - \bar g - \hat x\,\overline{g \hat x})
    """

    __slots__ = ()
    schema_v1 = OpSchema("test_standardize", 1, AmpPolicy.FORCE_FP32)
    saves_output = True
    saves_extra = ("mean", "rstd")

    @staticmethod
    def dispatch(be, x):
        mean = be.mean(x, (x.ndim - 1,), True)
        c = x - mean
        rstd = be.rsqrt(be.mean(c * c, (x.ndim - 1,), True))
        return c * rstd, mean, rstd

    def grad(self, F, g, x, out):
        rstd = self.extra["rstd"]
        if F is not self.be:  # graph mode: the saved intermediate as a constant
            rstd = lucid.Tensor._wrap(rstd, g._dtype, g._device)
        d = g.shape[-1]
        gm = F.sum(g, (g.ndim - 1,), True) / d
        gxm = F.sum(g * out, (g.ndim - 1,), True) / d
        return rstd * (g - gm - out * gxm)


class _SplitSignBackward(MultiOutputOp):
    r"""Test op: ``(|x|, sign(x))`` with only the first output differentiable."""

    __slots__ = ()
    schema_v1 = OpSchema(
        "test_split_sign", 1, AmpPolicy.KEEP_INPUT, output_arity=2, differentiable_outputs=(0,)
    )
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.abs(x), be.sign(x)

    def grad(self, F, g, x, out):
        return g[0] * F.sign(x)


def test_saves_extra_are_kept_on_the_node_not_returned():
    x = lucid.tensor(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
    y = _StandardizeBackward.apply(x)
    assert isinstance(y, lucid.Tensor) and y.shape == (3, 5)
    extra = y.grad_fn.extra
    assert set(extra) == {"mean", "rstd"}
    np.testing.assert_allclose(extra["mean"][:, 0], x.detach().numpy().mean(-1))
    xt = x.detach().numpy()
    np.testing.assert_allclose(
        y.detach().numpy(), (xt - xt.mean(-1, keepdims=True)) / xt.std(-1, keepdims=True)
    )
    assert lucid.autograd.gradcheck(_StandardizeBackward.apply, (x,))


def test_saves_extra_are_freed_with_the_graph():
    x = lucid.ones(2, 3, dtype=lucid.float64, requires_grad=True) * lucid.arange(3.0)
    y = _StandardizeBackward.apply(x)
    node = y.grad_fn
    y.sum().backward()
    assert node.extra is None


def test_saves_extra_without_grad_returns_the_output_only():
    y = _StandardizeBackward.apply(lucid.arange(6.0).reshape(2, 3))
    assert isinstance(y, lucid.Tensor) and y.grad_fn is None


def test_non_differentiable_outputs():
    x = lucid.tensor([-1.5, 2.0, 0.5], requires_grad=True)
    mag, sgn = _SplitSignBackward.apply(x)
    assert mag.requires_grad and not sgn.requires_grad and sgn.grad_fn is None
    (mag * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-2.0, 2.0, 2.0])


def test_needs_input_grad():
    a = lucid.ones(2, requires_grad=True)
    y = a * lucid.ones(2)
    assert y.grad_fn.needs_input_grad == (True, False)


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_scalar_operand_is_not_saved(lib):
    a = lib.ones(3, requires_grad=True)
    x = a * 1
    y = x * 3.0 + x / 2.0
    x.mul_(5)  # neither node saved x: no version error
    y.sum().backward()
    assert a.grad.tolist() == [3.5, 3.5, 3.5]


def test_mul_saves_only_what_the_gradients_need():
    a = lucid.ones(2, requires_grad=True)
    b = lucid.full((2,), 3.0)
    node = (a * b).grad_fn
    assert node.saved[0] is None and node.saved[1] is b


class _NondetBackward(UnaryOp):
    r"""Test op: the identity, declared nondeterministic on every device."""

    __slots__ = ()
    schema_v1 = OpSchema(
        "test_nondet",
        1,
        AmpPolicy.KEEP_INPUT,
        deterministic=False,
        determinism_note="It sums in an order that varies.",
    )

    @staticmethod
    def dispatch(be, x):
        return be.copy(x)


def test_determinism_switch():
    x = lucid.ones(2)
    _NondetBackward.apply(x)
    lucid.use_deterministic_algorithms(True)
    try:
        with pytest.raises(DeterminismError, match="test_nondet: .*varies"):
            _NondetBackward.apply(x)
        lucid.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="test_nondet"):
            _NondetBackward.apply(x)
        # scatter_add is nondeterministic on CUDA only: fine on the CPU
        out = lucid.zeros(3).scatter_add(0, lucid.tensor([0, 0, 2]), lucid.ones(3))
        assert out.tolist() == [2.0, 0.0, 1.0]
    finally:
        lucid.use_deterministic_algorithms(False)


def test_cuda_nondeterministic_ops_are_declared():
    for name in ("index_put", "scatter_reduce"):
        s = lucid.ops.core.registry.get_op(name).schema_v1
        assert not s.deterministic and s.nondeterministic_on == ("cuda",) and s.determinism_note


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_einsum_saves_only_the_other_operands(lib):
    a = lib.ones(2, 3, requires_grad=True) * 1
    b = lib.ones(3, 4)
    y = lib.einsum("ij,jk->ik", a, b)
    a.mul_(2)  # a's own gradient does not need a
    y.sum().backward()
    a2 = lib.ones(2, 3, requires_grad=True)
    b2 = lib.ones(3, 4) * 1
    y2 = lib.einsum("ij,jk->ik", a2, b2)
    b2.mul_(2)  # but it needs b
    with pytest.raises(RuntimeError, match="modified by an inplace operation|in-place"):
        y2.sum().backward()
