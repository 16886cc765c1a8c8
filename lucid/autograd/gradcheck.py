"""Finite-difference checks of gradients: :func:`gradcheck` and :func:`gradgradcheck`.

The analytical Jacobian row for output element :math:`k` comes from a backward with
``grad_output = e_k``; the numerical column for input element :math:`j` from central
differences :math:`(f(x + \\epsilon e_j) - f(x - \\epsilon e_j)) / 2\\epsilon`. Use float64
(complex128 for complex inputs).

Complex tensors count as pairs of real coordinates (real, imaginary), as PyTorch's check
does: a complex input element has two columns (perturbed by :math:`\\epsilon` and by
:math:`i\\epsilon`), a complex output element two rows, whose analytical entries come from
backwards with ``grad_output`` 1 and :math:`i`. With PyTorch's convention (the gradient of
a real :math:`L` with respect to :math:`z = x + iy` is :math:`\\partial L/\\partial x + i\\,
\\partial L/\\partial y`) the two parts of that gradient are the two columns' entries.
"""

from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._tensor import Tensor
from ..errors import GradcheckError
from .engine import grad as _grad
from .grad_mode import enable_grad, no_grad

__all__ = ["gradcheck", "gradgradcheck", "numerical_jacobian", "analytical_jacobian"]


def _tensors(xs):
    return [x for x in xs if isinstance(x, Tensor)]


def _outputs(fn, inputs):
    out = fn(*inputs)
    if isinstance(out, Tensor):
        return (out,)
    return tuple(o for o in out if isinstance(o, Tensor))


_F64 = _dt.float64.np


def _flat64(t):
    """``t``'s values as a new flat float64 array of its backend (a complex tensor's as
    interleaved real and imaginary parts)."""
    be = t._device.backend
    a = be.copy(t._data)
    if t._dtype.is_complex:
        a = be.view_as_real(a)
    return be.astype(a, _F64).reshape(-1)


def _rsize(t):
    """The number of real coordinates of ``t`` (two per complex element)."""
    return t._data.size * (2 if t._dtype.is_complex else 1)


def _steps(t, eps):
    """The perturbations of one element of ``t``: along the real axis, and the imaginary
    one for a complex ``t``."""
    return (eps, eps * 1j) if t._dtype.is_complex else (eps,)


def _zeros(be, m, n):
    return be.full((m, n), 0, _F64)


def _unravel(flat, shape):
    """The index tuple of element ``flat`` (row-major) of an array of ``shape``."""
    idx = []
    for n in reversed(shape):
        flat, r = divmod(flat, n)
        idx.append(r)
    return tuple(reversed(idx))


def numerical_jacobian(fn, inputs, eps=1e-6):
    """``[[J_out_in]]``: per differentiable output, per input requiring grad, a
    ``(out.numel(), in.numel())`` matrix by central differences."""
    wrt = [t for t in _tensors(inputs) if t._requires_grad]
    with no_grad():
        outs = _outputs(fn, inputs)
    jac = [[_zeros(o._device.backend, _rsize(o), _rsize(t)) for t in wrt] for o in outs]
    for j, t in enumerate(wrt):
        a = t._data
        steps = _steps(t, eps)
        for flat in range(a.size):
            idx = _unravel(flat, a.shape)
            orig = a[idx].copy()
            for s, step in enumerate(steps):
                with no_grad():
                    a[idx] = orig + step
                    plus = [_flat64(o) for o in _outputs(fn, inputs)]
                    a[idx] = orig - step
                    minus = [_flat64(o) for o in _outputs(fn, inputs)]
                    a[idx] = orig
                for k in range(len(outs)):
                    jac[k][j][:, flat * len(steps) + s] = (plus[k] - minus[k]) / (2 * eps)
    return jac


def analytical_jacobian(fn, inputs, create_graph=False):
    """Same layout as :func:`numerical_jacobian`, by one backward per output element."""
    wrt = [t for t in _tensors(inputs) if t._requires_grad]
    outs = _outputs(fn, inputs)
    jac = [[_zeros(o._device.backend, _rsize(o), _rsize(t)) for t in wrt] for o in outs]
    for k, o in enumerate(outs):
        if not o._requires_grad:
            continue
        be = o._device.backend
        units = _steps(o, 1)
        for r in range(_rsize(o)):
            e = be.full(o._data.shape, 0, o._dtype.np)
            e.reshape(-1)[r // len(units)] = units[r % len(units)]
            gs = _grad(
                (o,),
                wrt,
                (Tensor._wrap(e, o._dtype, o._device),),
                retain_graph=True,
                allow_unused=True,
                create_graph=create_graph,
            )
            for j, g in enumerate(gs):
                if g is not None:
                    jac[k][j][r, :] = _flat64(g)
    return jac


def _backend_of(arr, inputs):
    for t in _tensors(inputs):
        be = t._device.backend
        if isinstance(arr, be.ndarray):
            return be
    raise GradcheckError("gradcheck: no input tensor shares the Jacobian's backend")


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """Compare analytical and numerical Jacobians of ``fn`` at ``inputs`` (float64).

    Returns True when every entry satisfies ``|a - n| <= atol + rtol * |n|``; otherwise raises
    :class:`~lucid.errors.GradcheckError` naming the output, input and worst entry (or
    returns False when ``raise_exception=False``).
    """
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    inputs = tuple(inputs)
    for t in _tensors(inputs):
        if t._requires_grad and t._dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"gradcheck: input of dtype {t._dtype.name} is not float64 or "
                "complex128; the check may fail from rounding alone",
                stacklevel=2,
            )
    num = numerical_jacobian(fn, inputs, eps)
    ana = analytical_jacobian(fn, inputs)
    for k, (nrow, arow) in enumerate(zip(num, ana)):
        for j, (n, a) in enumerate(zip(nrow, arow)):
            be = _backend_of(n, inputs)
            err = be.abs(a - n)
            bad = be.logical_not(err <= atol + rtol * be.abs(n))
            if bool(bad.any()):
                r, c = _unravel(int(be.where(bad, err, -1.0).argmax()), bad.shape)
                msg = (
                    f"gradcheck: Jacobian mismatch for output {k} with respect to input "
                    f"{j}: numerical {n[r, c]:.6g} vs analytical {a[r, c]:.6g} at "
                    f"entry ({r}, {c}); {int(bad.sum())} of {bad.size} entries differ"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(
    fn,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    seed=0,
    **_ignored,
):
    """:func:`gradcheck` of the map ``(inputs, v) -> v^T J(inputs)``: checks second
    derivatives of ``fn`` through the graph-mode backward."""
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    inputs = tuple(inputs)
    with no_grad():
        outs = _outputs(fn, inputs)
    if grad_outputs is None:
        grad_outputs = []
        for o in outs:
            be = o._device.backend
            rng = be.rng_create(seed)
            part = o._dtype.to_real().np
            v = be.normal(rng, o._data.shape, 0.0, 1.0, part)
            if o._dtype.is_complex:
                v = be.make_complex(v, be.normal(rng, o._data.shape, 0.0, 1.0, part))
            v = Tensor._wrap(v, o._dtype, o._device)
            v.requires_grad = o._dtype._grad
            grad_outputs.append(v)
    grad_outputs = tuple(grad_outputs)
    n_in = len(inputs)
    wrt_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_grads(*args):
        xs, vs = args[:n_in], args[n_in:]
        with enable_grad():
            ys = _outputs(fn, xs)
        pairs = [(y, v) for y, v in zip(ys, vs) if y._requires_grad]
        if not pairs:
            return ()
        gs = _grad(
            tuple(p[0] for p in pairs),
            tuple(xs[i] for i in wrt_idx),
            tuple(p[1] for p in pairs),
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in gs if g is not None and g._requires_grad)

    return gradcheck(
        first_grads,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
