"""PyTorch (and NumPy-style) names for what Lucid computes under another name or form:
``lucid.i0`` with ``Tensor.i0`` / ``i0_`` (the :func:`lucid.special.i0` op),
``Tensor.cube`` / ``cube_`` (:math:`x^3`), the function ``lucid.index_put_``
(``Tensor.index_put_``) and ``lucid.histogram2d`` (over :func:`histogramdd`). No new
maths: each is a call of registered ops, whose gradients they inherit."""

from __future__ import annotations

from ...errors import ArgumentTypeError, ShapeError, reports_as
from ..core._bind import install, tensor_method
from ..core.base import to_tensor
from ..core.inplace import apply_inplace
from ..shape.joins import stack
from ..special.bessel import i0 as _i0
from ..reduction.stats import _result_type, histogramdd

__all__ = ["i0", "index_put_", "histogram2d"]


@tensor_method("i0")
def i0(input):
    """Element-wise modified Bessel function of the first kind of order 0, :math:`I_0(x)`
    (``lucid.special.i0``; integer input gives the default float dtype)."""
    return _i0(input)


def _i0_(self):
    """In-place :func:`i0`."""
    return apply_inplace(_i0, self)


@tensor_method("cube")
def _cube(self):
    """:math:`x^3` element-wise (``x.pow(3)``)."""
    return self.pow(3)


def _cube_(self):
    """In-place :math:`x^3` (``x.pow_(3)``)."""
    return self.pow_(3)


install(
    i0_=_i0_,
    cube_=_cube_,
)


def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` in place (``+=`` with ``accumulate``), as
    ``input.index_put_(indices, values, accumulate)``; returns ``input``."""
    return input.index_put_(indices, values, accumulate)


_Histogram2d = _result_type("histogram2d", ("hist", "x_edges", "y_edges"))


@reports_as("histogram2d")
def histogram2d(x, y, bins=10, *, range=None, weight=None, density=False):
    """``(hist, x_edges, y_edges)`` of the points ``(x[i], y[i])`` (two 1-D tensors of one
    length), as NumPy's ``histogram2d``: ``bins`` an int, two ints or two edge tensors;
    ``range`` ``[[xmin, xmax], [ymin, ymax]]`` (or flat, as :func:`histogramdd`);
    ``hist[i, j]`` counts (or with ``weight`` sums) the points in x-bin ``i`` and y-bin
    ``j``; ``density`` normalises it to integrate to 1."""
    x, y = to_tensor(x), to_tensor(y)
    if x.ndim != 1 or tuple(x.shape) != tuple(y.shape):
        raise ShapeError(
            f"histogram2d: x and y must be 1-D tensors of the same length, got "
            f"shapes {tuple(x.shape)} and {tuple(y.shape)}"
        )
    if range is not None:
        if not isinstance(range, (list, tuple)):
            raise ArgumentTypeError(
                f"histogram2d: range must be a sequence, got {type(range).__name__}"
            )
        range = [v for r in range for v in (r if isinstance(r, (list, tuple)) else (r,))]
    hist, edges = histogramdd(
        stack([x, y], dim=1), bins, range=range, weight=weight, density=density
    )
    return _Histogram2d(hist, edges[0], edges[1])
