"""``lucid.autograd.functional`` against ``torch.autograd.functional``: values, nesting of
tuple inputs/outputs, ``create_graph`` and the ``strict`` errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DTypeError, ShapeError

rng = np.random.default_rng(0)
A = rng.standard_normal(3)
W = rng.standard_normal((2, 3))
V3 = rng.standard_normal(3)
V2 = rng.standard_normal(2)


def f_elem(M, x):
    return (x * x).exp()


def f_mat(M, x, w):
    return M.matmul(w, x.exp())


def f_two_out(M, x):
    return x * 2, (x * x).sum()


def f_scalar(M, x):
    return (x.exp() * x).sum()


def f_scalar2(M, x, w):
    y = M.matmul(w, x)
    return (y * y * y).sum()


def _structure(x):
    """Nesting of tuples with array leaves (shape kept), for exact comparison."""
    if isinstance(x, tuple):
        return tuple(_structure(y) for y in x)
    return np.asarray(x.detach().numpy())


def _compare(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _compare(x, y)
    else:
        assert not isinstance(a, tuple)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _parity(call):
    """``call(M, F, t)`` for both libraries must return the same nested values."""
    got = call(lucid, lucid.autograd.functional, lucid.tensor)
    want = call(torch, torch.autograd.functional, torch.tensor)
    _compare(_structure(got), _structure(want))


CASES = {
    "jacobian_single": lambda M, F, t: F.jacobian(lambda x: f_elem(M, x), t(A)),
    "jacobian_tuple_in": lambda M, F, t: F.jacobian(lambda x, w: f_mat(M, x, w), (t(A), t(W))),
    "jacobian_tuple_out": lambda M, F, t: F.jacobian(lambda x: f_two_out(M, x), t(A)),
    "jacobian_tuple_in_out": lambda M, F, t: F.jacobian(
        lambda x, w: (f_mat(M, x, w), x * 3), (t(A), t(W))
    ),
    "jacobian_0d": lambda M, F, t: F.jacobian(lambda x: x.exp(), t(0.3, dtype=M.float64)),
    "vjp_single": lambda M, F, t: F.vjp(lambda x: f_elem(M, x), t(A), t(V3)),
    "vjp_tuple": lambda M, F, t: F.vjp(lambda x, w: f_mat(M, x, w), (t(A), t(W)), t(V2)),
    "vjp_scalar_default_v": lambda M, F, t: F.vjp(lambda x: f_scalar(M, x), t(A)),
    "vjp_tuple_out": lambda M, F, t: F.vjp(lambda x: f_two_out(M, x), t(A), (t(V3), t(1.5))),
    "jvp_single": lambda M, F, t: F.jvp(lambda x: f_elem(M, x), t(A), t(V3)),
    "jvp_tuple": lambda M, F, t: F.jvp(lambda x, w: f_mat(M, x, w), (t(A), t(W)), (t(V3), t(W))),
    "jvp_tuple_out": lambda M, F, t: F.jvp(lambda x: f_two_out(M, x), t(A), t(V3)),
    "jvp_default_v": lambda M, F, t: F.jvp(lambda x: x.exp() * 2, t([0.7], dtype=M.float64)),
    "hessian_single": lambda M, F, t: F.hessian(lambda x: f_scalar(M, x), t(A)),
    "hessian_tuple": lambda M, F, t: F.hessian(lambda x, w: f_scalar2(M, x, w), (t(A), t(W))),
    "hvp_single": lambda M, F, t: F.hvp(lambda x: f_scalar(M, x), t(A), t(V3)),
    "vhp_single": lambda M, F, t: F.vhp(lambda x: f_scalar(M, x), t(A), t(V3)),
    "hvp_tuple": lambda M, F, t: F.hvp(
        lambda x, w: f_scalar2(M, x, w), (t(A), t(W)), (t(V3), t(W))
    ),
    "vhp_tuple": lambda M, F, t: F.vhp(
        lambda x, w: f_scalar2(M, x, w), (t(A), t(W)), (t(V3), t(W))
    ),
    "unused_input_gives_zeros": lambda M, F, t: F.jacobian(lambda x, w: x * 2, (t(A), t(W))),
    "independent_output_gives_zeros": lambda M, F, t: F.vjp(lambda x: t(V3) * 1, t(A), t(V3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_torch(name):
    _parity(CASES[name])


def test_results_are_detached_without_create_graph():
    x = lucid.tensor(A, requires_grad=True)
    out, g = lucid.autograd.functional.vjp(lambda t: f_elem(lucid, t), x, lucid.tensor(V3))
    assert not out.requires_grad and not g.requires_grad
    j = lucid.autograd.functional.jacobian(lambda t: f_elem(lucid, t), x)
    assert not j.requires_grad
    assert x.grad is None


@pytest.mark.parametrize("which", ["vjp", "jacobian", "hessian", "hvp"])
def test_create_graph_lets_results_be_differentiated(which):
    def call(M, F, t):
        x = t(A, requires_grad=True)
        if which == "vjp":
            res = F.vjp(lambda u: f_elem(M, u), x, t(V3), create_graph=True)[1]
        elif which == "jacobian":
            res = F.jacobian(lambda u: f_elem(M, u), x, create_graph=True)
        elif which == "hessian":
            res = F.hessian(lambda u: f_scalar(M, u), x, create_graph=True)
        else:
            res = F.hvp(lambda u: f_scalar(M, u), x, t(V3), create_graph=True)[1]
        assert res.requires_grad
        (res * res).sum().backward()
        return x.grad

    _parity(call)


def test_create_graph_jvp_flows_into_v():
    def call(M, F, t):
        x = t(A, requires_grad=True)
        v = t(V3, requires_grad=True)
        out, jv = F.jvp(lambda u: f_elem(M, u), x, v, create_graph=True)
        (jv * out).sum().backward()
        return x.grad, v.grad

    _parity(call)


def test_v_none_requires_a_single_element():
    F = lucid.autograd.functional
    x = lucid.tensor(A)
    with pytest.raises(AutogradError, match="vjp: v can only be None if the output"):
        F.vjp(lambda t: f_elem(lucid, t), x)
    with pytest.raises(AutogradError, match="jvp: v can only be None if the input"):
        F.jvp(lambda t: f_elem(lucid, t), x)
    with pytest.raises(AutogradError, match="hvp: v can only be None if the input"):
        F.hvp(lambda t: f_scalar(lucid, t), x)


def test_v_of_wrong_shape_raises():
    F = lucid.autograd.functional
    with pytest.raises(ShapeError, match=r"vjp: v has shape \(2,\), expected \(3,\)"):
        F.vjp(lambda t: f_elem(lucid, t), lucid.tensor(A), lucid.tensor(V2))
    with pytest.raises(ShapeError, match="jvp: v has 1 tensors, expected 2"):
        F.jvp(
            lambda x, w: f_mat(lucid, x, w), (lucid.tensor(A), lucid.tensor(W)), (lucid.tensor(V3),)
        )


def test_non_tensor_inputs_or_outputs_raise():
    F = lucid.autograd.functional
    with pytest.raises(DTypeError, match="jacobian: entry 1 of inputs must be a Tensor"):
        F.jacobian(lambda x, y: x, (lucid.tensor(A), 3.0))
    with pytest.raises(DTypeError, match="vjp: the output of func must be a Tensor"):
        F.vjp(lambda x: 1.0, lucid.tensor(A), lucid.tensor(V3))


def test_hessian_of_non_scalar_function_raises():
    with pytest.raises(
        AutogradError,
        match=r"hessian: func must return a single-element "
        r"Tensor, got shape \(3,\)",
    ):
        lucid.autograd.functional.hessian(lambda t: t * t, lucid.tensor(A))
    with pytest.raises(AutogradError, match="hvp: func must return a single Tensor"):
        lucid.autograd.functional.hvp(lambda t: t * t, lucid.tensor(A), lucid.tensor(V3))


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda F, t: F.vjp(lambda x, w: x * 2, (t(A), t(W)), t(V3), strict=True),
            "vjp: the output of func is independent of input 1",
        ),
        (
            lambda F, t: F.vjp(lambda x: t(V3) * 1, t(A), t(V3), strict=True),
            "vjp: output 0 of the function does not require grad",
        ),
        (
            lambda F, t: F.jacobian(lambda x, w: x * 2, (t(A), t(W)), strict=True),
            "jacobian: output 0 is independent of input 1",
        ),
        (
            lambda F, t: F.jvp(lambda x, w: x * 2, (t(A), t(W)), (t(V3), t(W)), strict=True),
            "jvp: the output of func is independent of input 1",
        ),
        (
            lambda F, t: F.hessian(lambda x: (x * 2).sum(), t(A), strict=True),
            "hessian: the gradient with respect to input 0 is independent of the inputs",
        ),
        (
            lambda F, t: F.hvp(lambda x: (x * 2).sum(), t(A), t(V3), strict=True),
            "hvp: the gradient with respect to input 0 is independent of the inputs",
        ),
    ],
)
def test_strict_errors(call, match):
    with pytest.raises(AutogradError, match=match):
        call(lucid.autograd.functional, lucid.tensor)


def test_strict_errors_where_torch_raises_too():
    """Each strict failure above is also a failure in torch (same conditions)."""
    F, t = torch.autograd.functional, torch.tensor
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(lambda x, w: x * 2, (t(A), t(W)), t(V3), strict=True)
    with pytest.raises(RuntimeError, match="independent of the input"):
        F.hessian(lambda x: (x * 2).sum(), t(A), strict=True)


def test_strict_passes_on_a_well_behaved_function():
    F = lucid.autograd.functional
    x = lucid.tensor(A)
    F.jacobian(lambda t: f_elem(lucid, t), x, strict=True)
    F.hessian(lambda t: f_scalar(lucid, t), x, strict=True)
    F.jvp(lambda t: f_elem(lucid, t), x, lucid.tensor(V3), strict=True)


def test_inputs_are_not_modified_and_grads_not_accumulated():
    x = lucid.tensor(A, requires_grad=True)
    lucid.autograd.functional.hessian(lambda t: f_scalar(lucid, t), x)
    lucid.autograd.functional.jvp(lambda t: f_elem(lucid, t), x, lucid.tensor(V3))
    assert x.grad is None and x.requires_grad and x.grad_fn is None
    np.testing.assert_array_equal(x.detach().numpy(), A)
