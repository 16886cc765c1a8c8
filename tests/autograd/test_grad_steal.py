"""A leaf's first gradient becomes ``.grad`` without a copy only when nothing else holds
the array: every way a gradient can be shared must still leave ``.grad`` unaliased (each
case changes one gradient in place and checks that nothing else moved)."""

import weakref

import numpy as np

import lucid

rng = np.random.default_rng(3)
A = rng.standard_normal((3, 4))
B = rng.standard_normal((3, 4))


def _t(a):
    return lucid.tensor(a, requires_grad=True)


def _apart(*ts):
    arrs = [t.numpy() for t in ts]
    for i, a in enumerate(arrs):
        for b in arrs[i + 1 :]:
            assert not np.shares_memory(a, b)


def test_the_same_gradient_for_two_leaves_is_not_shared():
    a, b = _t(A), _t(B)
    (a + b).sum().backward()  # AddBackward hands one array to both leaves
    _apart(a.grad, b.grad)
    a.grad.mul_(0)
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((3, 4)))
    (a + b).sum().backward()  # accumulates in place into each
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(b.grad.numpy(), 2 * np.ones((3, 4)))


def test_a_leaf_used_twice_sums_both_gradients():
    x = _t(A)
    (x + x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.ones((3, 4)))


def test_a_gradient_kept_by_a_hook_is_copied():
    x = _t(A)
    kept = []
    x.register_hook(kept.append)
    (x * 2).sum().backward()
    _apart(x.grad, kept[0])
    x.grad.mul_(0)
    np.testing.assert_array_equal(kept[0].numpy(), 2 * np.ones((3, 4)))


def test_a_gradient_captured_by_backward_inputs_is_copied():
    x, y = _t(A), _t(B)
    (x * y).sum().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), B)
    assert y.grad is None


def test_a_retained_intermediate_and_its_leaf_do_not_share():
    x = _t(A)
    y = x + 0  # the add passes the gradient through unchanged
    y.retain_grad()
    (y * 3).sum().backward()
    _apart(x.grad, y.grad)
    y.grad.mul_(0)
    np.testing.assert_array_equal(x.grad.numpy(), 3 * np.ones((3, 4)))


def test_a_gradient_the_function_still_holds_is_copied():
    keep = {}

    class Keep(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            keep["g"] = g * 5  # returned and kept
            return keep["g"]

    x = _t(A)
    Keep.apply(x).sum().backward()
    _apart(x.grad, keep["g"])
    x.grad.mul_(0)
    np.testing.assert_array_equal(keep["g"].numpy(), 5 * np.ones((3, 4)))


def test_views_of_one_gradient_are_copied():
    a, b = _t(A), _t(B)
    lucid.cat([a, b]).sum().backward()  # each gradient a slice of one array
    _apart(a.grad, b.grad)
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((3, 4)))


def test_a_gradient_nothing_else_holds_is_kept_without_a_copy():
    made = []

    class Fresh(lucid.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            out = g * 2
            made.append(weakref.ref(out._data))
            return out

    x = _t(A)
    Fresh.apply(x).sum().backward()
    assert x.grad._data is made[0]()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.ones((3, 4)))
