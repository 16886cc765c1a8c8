"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode`` as
contexts, decorators (with and without parentheses, on generators) and functions."""

import pytest
import torch

import lucid

LIBS = (lucid, torch)


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    assert lucid.is_grad_enabled() and not lucid.is_inference_mode_enabled()


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_contexts_nest_and_restore(M):
    x = M.tensor([1.0], requires_grad=True)
    with M.no_grad():
        assert not M.is_grad_enabled()
        assert not (x * 2).requires_grad
        with M.enable_grad():
            assert M.is_grad_enabled() and (x * 2).requires_grad
        assert not M.is_grad_enabled()
    assert M.is_grad_enabled()
    with M.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert M.is_grad_enabled()


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_restored_after_an_exception(M):
    with pytest.raises(KeyError):
        with M.no_grad():
            raise KeyError
    assert M.is_grad_enabled()


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_decorators_with_and_without_parentheses(M):
    @M.no_grad()
    def a():
        return M.is_grad_enabled()

    @M.no_grad
    def b():
        return M.is_grad_enabled()

    @M.enable_grad
    def c():
        return M.is_grad_enabled()

    @M.set_grad_enabled(False)
    def d():
        return M.is_grad_enabled()

    @M.inference_mode
    def e():
        return M.is_inference_mode_enabled(), M.is_grad_enabled()

    @M.inference_mode(False)
    def f():
        return M.is_inference_mode_enabled()

    assert M.is_grad_enabled()  # decorating with set_grad_enabled changed nothing
    assert a() is False and b() is False and d() is False
    with M.no_grad():
        assert c() is True
    assert e() == (True, False) and f() is False
    assert a.__name__ == "a"


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_decorated_generator_runs_each_step_in_the_mode(M):
    @M.no_grad()
    def gen():
        yield M.is_grad_enabled()
        yield M.is_grad_enabled()
        return "done"

    g = gen()
    assert next(g) is False
    assert M.is_grad_enabled()  # not while suspended
    assert next(g) is False
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done"


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_set_grad_enabled_as_function(M):
    M.set_grad_enabled(False)
    try:
        assert not M.is_grad_enabled()
    finally:
        M.set_grad_enabled(True)
    assert M.is_grad_enabled()


@pytest.mark.parametrize("M", LIBS, ids=["lucid", "torch"])
def test_inference_mode(M):
    x = M.tensor([1.0], requires_grad=True)
    with M.inference_mode():
        assert M.is_inference_mode_enabled() and not M.is_grad_enabled()
        assert not (x * 2).requires_grad
    with M.inference_mode(False):
        assert not M.is_inference_mode_enabled() and (x * 2).requires_grad
    assert not M.is_inference_mode_enabled()


def test_grad_mode_reexported_by_autograd():
    assert lucid.autograd.no_grad is lucid.no_grad
    assert lucid.autograd.set_grad_enabled is lucid.set_grad_enabled
    assert lucid.autograd.is_grad_enabled is lucid.is_grad_enabled


def test_backward_inside_no_grad_still_computes_gradients():
    for M in LIBS:
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        with M.no_grad():
            y.backward()
        assert x.grad.tolist() == [2.0, 4.0]
