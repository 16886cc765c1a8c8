"""Anomaly mode: NaN gradients raise an AutogradError naming the node and showing the
forward call that created it; errors in backward keep their type and gain that stack."""

import warnings

import numpy as np
import pytest

import lucid
from lucid.autograd import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from lucid.errors import AutogradError


@pytest.fixture(autouse=True)
def _anomaly_off_after():
    yield
    assert not is_anomaly_enabled()


class NanGrad(lucid.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


class Raises(lucid.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        raise KeyError("boom")


def test_nan_from_custom_function_names_it_and_its_forward_line():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    with detect_anomaly():
        y = NanGrad.apply(x)  # FORWARD-LINE-A
        with pytest.raises(AutogradError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "Function 'NanGradBackward' returned nan values in its 0th output" in msg
    assert "FORWARD-LINE-A" in msg and "test_anomaly.py" in msg
    assert "lucid/autograd" not in msg  # Lucid's own frames are left out


def test_nan_from_builtin_op_names_the_op():
    x = lucid.tensor([0.0, 2.0], requires_grad=True)
    with detect_anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = x * float("inf")  # FORWARD-LINE-B
        z = y * 0
        with pytest.raises(
            AutogradError,
            match=r"(?s)'MulBackward' returned nan.*"
            r"FORWARD-LINE-B",
        ):
            z.sum().backward()


def test_check_nan_false_lets_nan_through():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    with detect_anomaly(check_nan=False):
        NanGrad.apply(x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_without_anomaly_mode_nan_passes_silently():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    NanGrad.apply(x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_error_in_backward_keeps_its_type_and_gains_the_forward_stack():
    x = lucid.tensor([1.0], requires_grad=True)
    with detect_anomaly():
        y = Raises.apply(x)  # FORWARD-LINE-C
        with pytest.raises(KeyError) as info:
            y.sum().backward()
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "Error detected in RaisesBackward" in notes and "FORWARD-LINE-C" in notes


def test_nodes_recorded_outside_anomaly_mode_have_no_trace():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    y = NanGrad.apply(x)
    with detect_anomaly():
        with pytest.raises(AutogradError, match="returned nan values"):
            y.sum().backward()


def test_set_detect_anomaly_as_function_and_context():
    set_detect_anomaly(True)
    try:
        assert is_anomaly_enabled()
    finally:
        set_detect_anomaly(False)
    assert not is_anomaly_enabled()
    with set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()
    with detect_anomaly():
        with set_detect_anomaly(False):
            assert not is_anomaly_enabled()
        assert is_anomaly_enabled()
    assert lucid.autograd.is_anomaly_check_nan_enabled()


def test_gradients_unchanged_by_anomaly_mode():
    data = np.array([0.3, -1.2, 2.0])
    grads = []
    for ctx in (detect_anomaly, lambda: set_detect_anomaly(False)):
        x = lucid.tensor(data, requires_grad=True)
        with ctx():
            y = lucid.matmul((x * x).exp().reshape(1, 3), x.reshape(3, 1)).sum()
            y.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
