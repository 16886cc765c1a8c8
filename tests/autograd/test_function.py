"""Custom ``lucid.autograd.Function``: the same Function written for Lucid and for torch
must give the same values, gradients and errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, ShapeError, VersionMismatchError

LIBS = (lucid, torch)
X = np.array([0.5, -1.25, 2.0])


def _np(t):
    return np.asarray(t.detach().numpy())


def _scaled_exp(M):
    """y = exp(k x) with a non-tensor argument k; saves its output."""

    class ScaledExp(M.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = (x * k).exp()
            ctx.save_for_backward(y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y * ctx.k, None

    return ScaledExp


def _both(build):
    """``build(M)`` run for Lucid and for torch, results as NumPy arrays (None kept)."""
    res = []
    for M in LIBS:
        out = build(M)
        res.append([None if o is None else _np(o) for o in out])
    return res


def _assert_same(build, rtol=1e-12):
    got, want = _both(build)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-14)


def test_forward_backward_and_non_tensor_argument():
    def build(M):
        x = M.tensor(X, requires_grad=True)
        y = _scaled_exp(M).apply(x, 1.5)
        (y * y).sum().backward()
        return y, x.grad

    _assert_same(build)


def test_output_node_is_named_after_the_function():
    x = lucid.tensor(X, requires_grad=True)
    y = _scaled_exp(lucid).apply(x, 2.0)
    assert y.grad_fn.name() == "ScaledExpBackward"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    assert "grad_fn=<ScaledExpBackward>" in repr(y)


def test_no_graph_without_grad_or_under_no_grad():
    f = _scaled_exp(lucid)
    assert f.apply(lucid.tensor(X), 2.0).grad_fn is None
    with lucid.no_grad():
        y = f.apply(lucid.tensor(X, requires_grad=True), 2.0)
    assert y.grad_fn is None and not y.requires_grad


def test_double_backward_through_lucid_ops_in_backward():
    def build(M):
        x = M.tensor(X, requires_grad=True)
        y = _scaled_exp(M).apply(x, 1.5)
        (g,) = M.autograd.grad(y.sum(), x, create_graph=True)
        (g * g).sum().backward()
        return g, x.grad

    _assert_same(build)


def test_saved_tensor_modified_in_place_raises():
    class Square(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lucid.tensor(X, requires_grad=True)
    h = x * 1
    y = Square.apply(h)
    h.mul_(2)
    with pytest.raises(VersionMismatchError, match=r"saved tensor 0 of shape \(3,\).*version 1"):
        y.sum().backward()


def test_saved_tensors_freed_after_backward():
    class Square(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lucid.tensor(X, requires_grad=True)
    y = Square.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * X)
    with pytest.raises(AutogradError, match="SquareBackward.*second time"):
        y.backward()
    with pytest.raises(AutogradError, match="freed"):
        y.grad_fn.next_functions[0][0].ctx.saved_tensors


def test_needs_input_grad():
    seen = {}
    for M in LIBS:

        class F(M.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                seen[M.__name__] = tuple(ctx.needs_input_grad)
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g, g, None

        F.apply(M.tensor([1.0], requires_grad=True), M.tensor([2.0]), 3)
    assert seen["lucid"] == seen["torch"] == (True, False, False)


def test_backward_returning_none_for_an_input():
    def build(M):
        class F(M.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g * 3, None

        a = M.tensor(X, requires_grad=True)
        b = M.tensor(X, requires_grad=True)
        F.apply(a, b).sum().backward()
        return a.grad, b.grad

    _assert_same(build)


def test_multiple_outputs_materialize_zeros():
    got = {}
    for M in LIBS:

        class Two(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                got[M.__name__] = (_np(ga), _np(gb))
                return ga * 2 + gb * 3

        x = M.tensor(X, requires_grad=True)
        a, b = Two.apply(x)
        assert a.grad_fn is b.grad_fn
        a.sum().backward()
        np.testing.assert_allclose(_np(x.grad), [2, 2, 2])
    for lg, tg in zip(got["lucid"], got["torch"]):
        np.testing.assert_array_equal(lg, tg)


def test_set_materialize_grads_false_passes_none():
    got = {}
    for M in LIBS:

        class Two(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                got[M.__name__] = (ga is None, gb is None)
                return gb * 3

        x = M.tensor(X, requires_grad=True)
        Two.apply(x)[1].sum().backward()
        np.testing.assert_allclose(_np(x.grad), [3, 3, 3])
    assert got["lucid"] == got["torch"] == (True, False)


def test_mark_non_differentiable():
    for M in LIBS:

        class WithIndex(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x * 0
                ctx.mark_non_differentiable(idx)
                return x * 2, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                assert not np.any(_np(g_idx))
                return g * 2

        x = M.tensor(X, requires_grad=True)
        y, idx = WithIndex.apply(x)
        assert y.requires_grad and not idx.requires_grad and idx.grad_fn is None
        y.sum().backward()
        np.testing.assert_allclose(_np(x.grad), [2, 2, 2])


def _add_one(M):
    class AddOne(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return AddOne


def test_mark_dirty_returns_the_input_rebased():
    def build(M):
        x = M.tensor(X, requires_grad=True)
        h = x * 2
        out = _add_one(M).apply(h)
        assert out is h and h._version >= 1
        (out * out).sum().backward()
        return out, x.grad

    _assert_same(build)


def test_mark_dirty_on_leaf_requiring_grad_raises():
    for M, err in ((lucid, AutogradError), (torch, RuntimeError)):
        with pytest.raises(err, match="leaf Variable that requires grad"):
            _add_one(M).apply(M.tensor(X, requires_grad=True))


def test_mark_dirty_of_a_tensor_not_returned_raises():
    class Bad(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(AutogradError, match="Bad: a tensor marked dirty.*not returned"):
        Bad.apply(lucid.tensor(X, requires_grad=True) * 1)


def test_input_returned_unchanged_is_a_new_tensor():
    def build(M):
        class Ident(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = M.tensor(X, requires_grad=True)
        y = Ident.apply(x)
        assert y is not x and x.grad_fn is None and y.grad_fn is not None
        y.sum().backward()
        return (x.grad,)

    _assert_same(build)


def test_setup_context_style():
    def build(M):
        class Scale(M.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * ctx.k + out * 0, None

        x = M.tensor(X, requires_grad=True)
        y = Scale.apply(x, 5.0)
        y.sum().backward()
        return y, x.grad

    _assert_same(build)


def _once(M):
    class Square(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @M.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


def test_once_differentiable_first_order_and_double_backward_error():
    for M, err in ((lucid, AutogradError), (torch, RuntimeError)):
        x = M.tensor(X, requires_grad=True)
        _once(M).apply(x).sum().backward()
        np.testing.assert_allclose(_np(x.grad), 2 * X)
        v = M.tensor(np.ones(3), requires_grad=True)
        (g,) = M.autograd.grad(_once(M).apply(x), x, v, create_graph=True)
        assert g.requires_grad
        with pytest.raises(err, match="differentiate twice.*once_differentiable"):
            g.sum().backward()


def test_backward_gradient_of_wrong_shape_raises():
    class BadShape(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return lucid.tensor([1.0, 2.0])

    x = lucid.tensor(X, requires_grad=True)
    with pytest.raises(ShapeError, match=r"BadShapeBackward.*shape \(2,\).*argument 0.*\(3,\)"):
        BadShape.apply(x).sum().backward()


def test_backward_gradient_summed_back_when_input_broadcasts_to_it():
    class Widen(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return lucid.tensor(np.ones((2, 3)))

    x = lucid.tensor(X, requires_grad=True)
    Widen.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2, 2])


def test_backward_wrong_number_of_gradients_raises():
    class TooFew(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    class ExtraNone(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = lucid.tensor(X, requires_grad=True)
    with pytest.raises(
        AutogradError, match="TooFewBackward: backward returned 1 gradients, expected 2"
    ):
        TooFew.apply(x, x).sum().backward()
    with pytest.raises(
        AutogradError, match="TooManyBackward: backward returned 2 gradients, expected 1"
    ):
        TooMany.apply(x).sum().backward()
    ExtraNone.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 1, 1])


def test_backward_returning_a_non_tensor_raises():
    class NotTensor(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return 1.0

    with pytest.raises(AutogradError, match="NotTensorBackward: backward returned float"):
        NotTensor.apply(lucid.tensor(X, requires_grad=True)).sum().backward()


def test_function_in_a_larger_graph_matches_torch():
    def build(M):
        x = M.tensor(X, requires_grad=True)
        w = M.tensor(np.arange(6.0).reshape(2, 3) / 7, requires_grad=True)
        y = _scaled_exp(M).apply(M.matmul(w, x), 0.5)
        z = (y * _scaled_exp(M).apply(x.sum() * 1, -1.0)).sum()
        z.backward()
        return x.grad, w.grad

    _assert_same(build)


def test_gradcheck_of_a_custom_function():
    x = lucid.tensor(X, requires_grad=True)
    assert lucid.autograd.gradcheck(lambda t: _scaled_exp(lucid).apply(t, 0.7), (x,))
    assert lucid.autograd.gradgradcheck(lambda t: _scaled_exp(lucid).apply(t, 0.7), (x,))


def test_saved_output_makes_no_reference_cycle():
    import gc
    import weakref

    x = lucid.tensor(X, requires_grad=True)
    gc.disable()
    try:
        y = _scaled_exp(lucid).apply(x, 2.0)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_saved_output_modified_in_place_raises():
    x = lucid.tensor(X, requires_grad=True)
    y = _scaled_exp(lucid).apply(x, 2.0)
    z = y + 1  # saves nothing itself
    y.mul_(2)
    with pytest.raises(VersionMismatchError, match="saved tensor 0 of shape"):
        z.sum().backward()
