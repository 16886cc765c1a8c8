"""``gradcheck`` / ``gradgradcheck``: pass on correct gradients, fail (with a message naming
output, input and entry) on a deliberately wrong custom Function backward."""

import numpy as np
import pytest

import lucid
from lucid.autograd import Function, gradcheck, gradgradcheck
from lucid.errors import GradcheckError

X = np.array([0.4, -0.7, 1.3])


class Cube(Function):
    """y = x^3 with a correct backward written in Lucid ops (twice differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class CubeWrongFirst(Function):
    """Wrong first derivative: 2x^2 instead of 3x^2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x * x


class CubeWrongSecond(Function):
    """Right first derivative, but computed from a detached x: the second derivative is
    lost (0 instead of 6x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x.detach()
        return g * 3 * xd * xd


def _x():
    return lucid.tensor(X, requires_grad=True)


def test_correct_function_passes_both_checks():
    assert gradcheck(Cube.apply, (_x(),))
    assert gradgradcheck(Cube.apply, (_x(),))


def test_wrong_first_derivative_fails_gradcheck():
    with pytest.raises(
        GradcheckError,
        match=r"Jacobian mismatch for output 0 with respect to "
        r"input 0: numerical 5\.07 vs analytical 3\.38 "
        r"at entry \(2, 2\); 3 of 9 entries differ",
    ):
        gradcheck(CubeWrongFirst.apply, (_x(),))
    assert gradcheck(CubeWrongFirst.apply, (_x(),), raise_exception=False) is False


def test_wrong_second_derivative_passes_gradcheck_fails_gradgradcheck():
    assert gradcheck(CubeWrongSecond.apply, (_x(),))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(CubeWrongSecond.apply, (_x(),))
    assert gradgradcheck(CubeWrongSecond.apply, (_x(),), raise_exception=False) is False


def test_multiple_inputs_outputs_and_non_tensor_args():
    w = lucid.tensor(np.arange(6.0).reshape(2, 3) / 4, requires_grad=True)
    const = lucid.tensor(X)  # does not require grad: not checked

    def f(x, w, c, k):
        y = lucid.matmul(w, x * c)
        return y.exp() * k, (x * x).sum()

    assert gradcheck(f, (_x(), w, const, 0.5))
    assert gradgradcheck(f, (_x(), w, const, 0.5))


def test_wrong_gradient_of_second_input_is_reported_for_that_input():
    class HalfWrong(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a * 2

    with pytest.raises(GradcheckError, match="output 0 with respect to input 1"):
        gradcheck(HalfWrong.apply, (_x(), _x()))


def test_non_float64_input_warns():
    x = lucid.tensor(X.astype(np.float32), requires_grad=True)
    with pytest.warns(UserWarning, match="gradcheck: input of dtype float32 is not float64"):
        assert gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-3, rtol=1e-3)


def test_single_tensor_instead_of_tuple():
    assert gradcheck(lambda t: (t * t).exp(), _x())


def test_input_left_unchanged():
    x = _x()
    gradcheck(Cube.apply, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), X)
    assert x.grad is None
