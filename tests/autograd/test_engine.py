"""The backward engine: graph shapes, accumulation, retain_graph, version counters,
``backward(inputs=...)``, ``autograd.grad`` options and error cases (vs torch)."""

import gc

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DTypeError, ShapeError, VersionMismatchError

LIBS = (lucid, torch)
rng = np.random.default_rng(1)
A = rng.standard_normal(4)
B = rng.standard_normal(4)
M23 = rng.standard_normal((2, 3))


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy())


def _same(build, rtol=1e-12):
    """Run ``build(M)`` for Lucid and torch; every returned tensor (or None) must agree."""
    got, want = ([_np(t) for t in build(M)] for M in LIBS)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert g is not None and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-14)


def test_diamond():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        a = x.exp()
        b, c = a * 2, a * a
        (b * c).sum().backward()
        return (x.grad,)

    _same(build)


def test_shared_leaf_used_by_many_ops_and_broadcast():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(M23, requires_grad=True)
        y = M.matmul(w, w.transpose(0, 1))  # w used twice by one op
        z = (w.unsqueeze(2) * x.reshape(1, 1, 4)).sum() + y.sum() + (x * x).sum()
        z.backward()
        return x.grad, w.grad

    _same(build)


def test_accumulation_across_two_backward_calls_in_place():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        (x * 3).sum().backward()
        first = x.grad
        (x * x).sum().backward()
        assert x.grad is first  # accumulated in place, like torch
        return (x.grad,)

    _same(build)


def test_grad_is_a_copy_not_an_alias_of_the_incoming_gradient():
    x = lucid.tensor(A, requires_grad=True)
    g = lucid.tensor(np.ones(4))
    x.backward(g)
    assert x.grad is not g and not np.shares_memory(x.grad.numpy(), g.numpy())
    x.backward(g)
    np.testing.assert_array_equal(g.numpy(), np.ones(4))
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.ones(4))


def test_multiple_roots_with_grad_tensors():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        y1, y2 = x.exp(), x * x
        M.autograd.backward([y1, y2], [M.tensor(B), M.tensor(A)])
        return (x.grad,)

    _same(build)


def test_root_reachable_from_another_root():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        y = x.exp()
        z = (y * y).sum()
        M.autograd.backward([z, y.sum()])
        return (x.grad,)

    _same(build)


def test_root_that_is_a_leaf_and_gradient_cast_to_its_dtype():
    def build(M):
        x = M.tensor([1.0, 2.0], dtype=M.float32, requires_grad=True)
        x.backward(M.tensor([3.0, 4.0], dtype=M.float64))
        assert x.grad.dtype == M.float32
        return (x.grad,)

    _same(build)


def test_float32_graph_float64_leaf_grads_keep_leaf_dtype():
    def build(M):
        x = M.tensor(A, requires_grad=True)  # float64
        w = M.tensor(B.astype(np.float32), requires_grad=True)  # float32
        (x * w).exp().sum().backward()
        assert x.grad.dtype == M.float64 and w.grad.dtype == M.float32
        return x.grad, w.grad

    _same(build, rtol=1e-6)


def test_gradient_of_wrong_shape_raises():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(
        ShapeError,
        match=r"backward: mismatch in shape: grad_output 0 has "
        r"shape \(3,\) and output 0 has shape \(4,\)",
    ):
        (x * 2).backward(lucid.tensor([1.0, 2.0, 3.0]))


def test_non_scalar_backward_without_gradient_raises():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(
        AutogradError,
        match=r"backward: grad can be implicitly created only "
        r"for scalar outputs.*shape \(4,\)",
    ):
        (x * 2).backward()
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2, 2])


def test_backward_of_tensor_without_grad_raises():
    with pytest.raises(AutogradError, match="element 0 of tensors does not require grad"):
        lucid.tensor(A).sum().backward()


def test_retain_graph_allows_second_backward():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return (x.grad,)

    _same(build)


def test_second_backward_through_freed_graph_raises():
    x = lucid.tensor(A, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    with pytest.raises(
        AutogradError,
        match="ExpBackward: trying to backward through the graph a second time.*retain_graph=True",
    ):
        y.backward()
    with pytest.raises(AutogradError, match="second time"):
        lucid.autograd.grad(y, x)


def test_second_backward_through_nodes_that_saved_nothing_works():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return (x.grad,)

    _same(build)


def test_create_graph_retains_graph_by_default():
    x = lucid.tensor(A, requires_grad=True)
    y = (x.exp()).sum()
    (g,) = lucid.autograd.grad(y, x, create_graph=True)
    (g2,) = lucid.autograd.grad(y, x)
    np.testing.assert_allclose(g.detach().numpy(), g2.numpy())


def test_modified_saved_input_raises_version_error():
    x = lucid.tensor(A, requires_grad=True)
    a = x * 1
    c = a * a
    a.mul_(2)
    with pytest.raises(
        VersionMismatchError,
        match=r"MulBackward: one of the tensors needed "
        r"for gradient computation \(input 0 of "
        r"shape \(4,\)\).*version 1, expected "
        r"version 0",
    ):
        c.sum().backward()
    assert isinstance(VersionMismatchError("x"), AutogradError)


def test_modified_saved_output_raises_version_error():
    x = lucid.tensor(A, requires_grad=True)
    y = (x * 1).exp()
    y.mul_(2)  # exp saved its output; the in-place mul changed it
    with pytest.raises(VersionMismatchError, match=r"ExpBackward.*\(output 0\)"):
        y.sum().backward()


def test_modifying_a_view_of_a_saved_tensor_raises():
    x = lucid.tensor(M23, requires_grad=True)
    a = x * 1
    c = (a * a).sum()
    a.transpose(0, 1).mul_(2)
    with pytest.raises(VersionMismatchError):
        c.backward()


def test_in_place_on_leaf_requiring_grad_raises():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(AutogradError, match="mul_: a leaf Variable that requires grad"):
        x.mul_(2)
    with pytest.raises(AutogradError, match="a view of a leaf Variable"):
        x.reshape(2, 2).mul_(2)
    with lucid.no_grad():
        x.mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), 2 * A)


def test_requires_grad_on_integer_tensor_raises():
    for make in (
        lambda: lucid.tensor([1, 2], requires_grad=True),
        lambda: lucid.tensor([1, 2]).requires_grad_(),
        lambda: setattr(lucid.tensor([True]), "requires_grad", True),
    ):
        with pytest.raises(
            DTypeError,
            match="only floating point tensors can require gradients, got dtype lucid.(int64|bool)",
        ):
            make()


def test_requires_grad_false_on_non_leaf_raises():
    y = lucid.tensor(A, requires_grad=True) * 2
    with pytest.raises(AutogradError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False


def test_long_chain_backward_has_no_recursion_limit():
    x = lucid.tensor([1.0], dtype=lucid.float64, requires_grad=True)
    c = lucid.tensor([1.00001], dtype=lucid.float64)
    gc.disable()  # keeps building 10^5 nodes fast; the backward is what is tested
    try:
        y = x
        for _ in range(100_000):
            y = y * c
    finally:
        gc.enable()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.00001**100_000], rtol=1e-9)
    del y  # freeing the chain must not recurse either


def test_backward_inputs_accumulates_only_those_leaves():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(B, requires_grad=True)
        (x * w).exp().sum().backward(inputs=[w])
        assert x.grad is None
        return (w.grad,)

    _same(build)


def test_backward_inputs_with_non_leaf_input():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(B, requires_grad=True)
        h = x * w
        (h * h).sum().backward(inputs=[w, h])
        assert x.grad is None
        return w.grad, h.grad

    _same(build)


def test_backward_inputs_non_leaf_only_does_not_run_or_free_its_producer():
    x = lucid.tensor(A, requires_grad=True)
    h = x * x  # MulBackward saved x
    y = (h * 3).sum()
    y.backward(inputs=[h])
    np.testing.assert_array_equal(h.grad.numpy(), 3 * np.ones(4))
    assert x.grad is None
    (h * 1).sum().backward()  # h's node was neither run nor freed by the first call
    np.testing.assert_allclose(x.grad.numpy(), 2 * A)


def test_backward_inputs_empty_raises():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(AutogradError, match="inputs argument must not be empty"):
        (x * 2).sum().backward(inputs=[])


def test_grad_does_not_touch_dot_grad():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(B, requires_grad=True)
        gx, gw = M.autograd.grad((x.exp() * w).sum(), [x, w])
        assert x.grad is None and w.grad is None and not gx.requires_grad
        return gx, gw

    _same(build)


def test_grad_single_tensor_input_returns_tuple():
    for M in LIBS:
        x = M.tensor(A, requires_grad=True)
        res = M.autograd.grad((x * 2).sum(), x)
        assert isinstance(res, tuple) and len(res) == 1


def test_grad_with_grad_outputs():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        return M.autograd.grad([x.exp(), x * x], [x], [M.tensor(B), M.tensor(A)])

    _same(build)


def test_grad_wrt_non_leaf():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        h = x.exp()
        return M.autograd.grad((h * h).sum(), [h, x])

    _same(build)


def test_grad_unused_input():
    x = lucid.tensor(A, requires_grad=True)
    w = lucid.tensor(B, requires_grad=True)
    with pytest.raises(
        AutogradError,
        match=r"grad: one of the differentiated tensors "
        r"\(input 1\) appears to not have been used",
    ):
        lucid.autograd.grad((x * 2).sum(), [x, w])

    def build(M, **kw):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(B, requires_grad=True)
        return M.autograd.grad((x * 2).sum(), [x, w], **kw)

    _same(lambda M: build(M, allow_unused=True))
    _same(lambda M: build(M, materialize_grads=True))


def test_grad_input_not_requiring_grad_raises():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(AutogradError, match="grad: input 1 does not require grad"):
        lucid.autograd.grad((x * 2).sum(), [x, lucid.tensor(B)])


def test_grad_create_graph_second_order():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(B, requires_grad=True)
        y = (x.exp() * w * x).sum()
        gx, gw = M.autograd.grad(y, [x, w], create_graph=True)
        assert gx.requires_grad and gw.requires_grad
        (gx * gx).sum().backward()
        return gx, gw, x.grad, w.grad

    _same(build)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_backward_accumulates_differentiable_grad():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        (x.exp() * x).sum().backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        (gx,) = M.autograd.grad(g.sum(), x)
        return g, gx

    _same(build)


def test_third_derivative():
    def build(M):
        x = M.tensor(A, requires_grad=True)
        y = (x.exp() * x * x).sum()
        (g1,) = M.autograd.grad(y, x, create_graph=True)
        (g2,) = M.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = M.autograd.grad(g2.sum(), x)
        return g1, g2, g3

    _same(build)


def test_multi_output_node_with_one_output_used():
    def build(M):
        x = M.tensor(M23, requires_grad=True)
        parts = x.split(1, dim=1)
        (parts[1].exp()).sum().backward()
        return (x.grad,)

    _same(build)


def test_detach_cuts_graph_and_shares_storage_and_version():
    x = lucid.tensor(A, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert np.shares_memory(d.numpy(), y.detach().numpy())
    z = x * y  # saves y at version 0
    d.add_(1)
    assert y._version == 1
    with pytest.raises(VersionMismatchError):
        z.sum().backward()
    z = x * 3
    z.detach_()
    assert z.grad_fn is None and not z.requires_grad


def test_detach_then_in_place_invalidates_saved_value():
    x = lucid.tensor(A, requires_grad=True)
    y = (x * 1).exp()
    y.detach().mul_(2)
    with pytest.raises(VersionMismatchError):
        y.sum().backward()


def test_is_leaf_and_grad_fn_metadata():
    x = lucid.tensor(A, requires_grad=True)
    y = x * lucid.tensor(B)
    assert x.is_leaf and not y.is_leaf and lucid.tensor(A).is_leaf
    fns = y.grad_fn.next_functions
    assert fns[0][0].name() == "AccumulateGrad" and fns[0][0].variable is x
    assert fns[1] == (None, 0)
    assert (x * 2).grad_fn.next_functions[0][0] is fns[0][0]  # one accumulator per leaf


def test_no_grad_results_do_not_record():
    x = lucid.tensor(A, requires_grad=True)
    with lucid.no_grad():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad


def test_integer_result_of_float_inputs_records_no_graph():
    x = lucid.tensor(A, requires_grad=True)
    y = x.to(lucid.int64)
    assert not y.requires_grad and y.grad_fn is None


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_grads_do_not_alias_the_incoming_gradient():
    x = lucid.tensor(A, requires_grad=True)
    v = lucid.tensor(np.ones(4))
    y = x + 0  # the add passes v through unchanged
    y.retain_grad()
    y.backward(v, create_graph=True)
    assert x.grad is not v and y.grad is not v
    (x * 1).sum().backward()  # accumulates into x.grad in place
    y.grad.mul_(0)
    np.testing.assert_array_equal(v.numpy(), np.ones(4))
    np.testing.assert_array_equal(x.grad.detach().numpy(), 2 * np.ones(4))


def test_node_metadata_persists():
    y = lucid.tensor(A, requires_grad=True) * 2
    y.grad_fn.metadata["tag"] = 1
    assert y.grad_fn.metadata == {"tag": 1}


def test_accumulating_into_a_read_only_grad_assigned_by_the_user():
    x = lucid.tensor(A, requires_grad=True)
    x.grad = lucid.tensor(1.0, dtype=lucid.float64).expand(4)  # a read-only broadcast view
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 3 * np.ones(4))


def test_grad_output_checks():
    x = lucid.tensor(A, requires_grad=True)
    with pytest.raises(
        AutogradError, match="grad_output 0 has dtype int64, expected a floating dtype"
    ):
        (x * 2).backward(lucid.tensor([1, 2, 3, 4]))
    with pytest.raises(AutogradError, match="grad_output 0 must be a Tensor or None, got float"):
        (x * 2).sum().backward(1.0)
    with pytest.raises(AutogradError, match="backward: got 4 gradients for 1 tensors"):
        (x * 2).backward([1.0] * 4)


def test_node_input_meta_is_shared_between_nodes_and_bounded(monkeypatch):
    """Nodes over the same (shape, dtype) inputs keep one meta object (fewer objects for
    the cyclic collector); the table empties past its cap and gradients stay right."""
    from lucid.autograd import graph

    x = lucid.ones(3, 4, requires_grad=True)
    a, b = x * 2.0, x * 3.0
    assert a.grad_fn.in_meta is b.grad_fn.in_meta
    assert a.grad_fn.in_meta == (((3, 4), lucid.float32),)
    monkeypatch.setattr(graph, "_META_MAX", 2)
    ys = [lucid.ones(n, requires_grad=True) for n in range(1, 6)]
    zs = [y * 2.0 for y in ys]
    assert len(graph._META) <= 3
    assert [z.grad_fn.in_meta[0][0] for z in zs] == [(n,) for n in range(1, 6)]
    sum(z.sum() for z in zs).backward()
    assert all(y.grad.tolist() == [2.0] * len(y) for y in ys)
