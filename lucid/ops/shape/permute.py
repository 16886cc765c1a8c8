"""Permutations of the axes and of the elements: ``permute``, ``transpose`` (``swapaxes``,
``swapdims``; and in place), ``movedim``, ``t``, the ``T``, ``mT``, ``H`` and ``mH``
properties and ``adjoint`` (views, :class:`PermuteBackward`), and ``flip``, ``fliplr``,
``flipud``, ``roll`` and ``rot90`` (copies, as in PyTorch: the result never aliases the
input).

Each gradient is the incoming one moved back by the inverse permutation (permuted back,
flipped again, rolled by :math:`-s`). Complex tensors permute like any other (holomorphic);
``mH``, ``H`` and ``adjoint`` conjugate, into new memory (Lucid has no lazy conjugate
bit).
"""

from __future__ import annotations

import numbers

from ...errors import ArgumentError, DimError, ShapeError, reports_as
from ..core._bind import install, tensor_method
from ..core.base import UnaryOp, ViewOp, norm_dim, norm_dims
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ..elementwise.complex import conj as _conj
from ._common import _int, _restride_, _shape_arg
from ..core.casts import clone

__all__ = [
    "permute",
    "transpose",
    "swapaxes",
    "swapdims",
    "movedim",
    "moveaxis",
    "t",
    "adjoint",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "rot90",
]


# -- permutations -------------------------------------------------------------------------


@register
class PermuteBackward(ViewOp):
    r"""Autograd node for :math:`y = x^{\sigma}`: a view with axes reordered by :math:`\sigma`.

    Saves nothing: the gradient is permuted back by :math:`\sigma^{-1}`. Also the node of
    ``transpose``, ``movedim``, ``t``, ``T``, ``mT``, ``mH``.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g^{\sigma^{-1}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"permute"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.transpose(axes)`` (a strided view, no copy).
    """

    __slots__ = ()
    schema_v1 = OpSchema("permute", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dims):
        return be.permute(x, dims)

    def _inverse(self):
        dims = self.params["dims"]
        inv = [0] * len(dims)
        for i, d in enumerate(dims):
            inv[d] = i
        return tuple(inv)

    def grad(self, F, g, x, out):
        return F.permute(g, self._inverse())


@tensor_method("permute")
def permute(input, *args, dims=None):
    """A view of ``input`` with dims reordered."""
    dims = _shape_arg(args if dims is None else (dims,), "permute")
    nd = input._data.ndim
    if len(dims) != nd:
        raise ShapeError(
            f"permute: number of dims {len(dims)} doesn't match the tensor's number of dims {nd}"
        )
    dims = tuple(norm_dim(d, nd, "permute") for d in dims)
    if len(set(dims)) != nd:
        raise DimError(f"permute: repeated dim in {dims}")
    return PermuteBackward.call(input, dims=dims)


def _swap(input, d0, d1):
    if input._data.ndim == 0:  # dims 0 / -1 of a 0-d tensor: itself
        return PermuteBackward.call(input, dims=())
    dims = list(range(input._data.ndim))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return PermuteBackward.call(input, dims=tuple(dims))


@tensor_method("transpose")
def transpose(input, dim0, dim1):
    """A view of ``input`` with ``dim0`` and ``dim1`` swapped."""
    nd = input._data.ndim
    return _swap(input, norm_dim(dim0, nd, "transpose"), norm_dim(dim1, nd, "transpose"))


# the aliases' errors name the alias the user called
swapaxes = tensor_method("swapaxes")(reports_as("swapaxes")(transpose))
swapdims = tensor_method("swapdims")(reports_as("swapdims")(transpose))


@tensor_method("transpose_", "swapaxes_", "swapdims_")
def transpose_(input, dim0, dim1):
    """``transpose`` in place: ``input``'s dims ``dim0`` and ``dim1`` swap."""
    return _restride_("transpose_", input, transpose(input, dim0, dim1))


@tensor_method("movedim")
def movedim(input, source, destination):
    """A view of ``input`` with dims ``source`` moved to positions ``destination``."""
    nd = input._data.ndim
    src = (source,) if isinstance(source, numbers.Integral) else tuple(source)
    dst = (destination,) if isinstance(destination, numbers.Integral) else tuple(destination)
    if len(src) != len(dst):
        raise ShapeError(
            f"movedim: source {list(src)} and destination {list(dst)} must "
            "hold the same number of dims"
        )
    src = tuple(norm_dim(d, nd, "movedim") for d in src)
    dst = tuple(norm_dim(d, nd, "movedim") for d in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise DimError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    if nd == 0:
        return PermuteBackward.call(input, dims=())
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    perm = tuple(p if p >= 0 else next(rest) for p in perm)
    return PermuteBackward.call(input, dims=perm)


moveaxis = tensor_method("moveaxis")(reports_as("moveaxis")(movedim))


@tensor_method("t")
def t(input):
    """The transpose of a tensor of at most 2 dims (0-d and 1-d: a view of itself)."""
    nd = input._data.ndim
    if nd > 2:
        raise ShapeError(f"t: expects a tensor with <= 2 dimensions, but self is {nd}D")
    return PermuteBackward.call(input, dims=tuple(range(nd))[::-1])


@tensor_method("t_")
def t_(input):
    """``t`` in place."""
    return _restride_("t_", input, t(input))


def _mT(input, op="mT"):
    """The view with the last two dims swapped (batches of matrices; a 0-d tensor is
    itself, as in PyTorch)."""
    nd = input._data.ndim
    if nd == 1:
        raise ShapeError(
            f"{op}: only supported on matrices or batches of matrices; got a 1-D tensor"
        )
    return _swap(input, nd - 2, nd - 1) if nd else PermuteBackward.call(input, dims=())


def _T(input):
    """The view with all dims reversed."""
    return PermuteBackward.call(input, dims=tuple(range(input._data.ndim))[::-1])


def _H(input):
    """The conjugate transpose of a matrix (a copy for complex: no lazy conjugate bit)."""
    if input._data.ndim not in (0, 2):
        raise ShapeError(
            f"H: only supported on matrices (2-D tensors); got a {input._data.ndim}-D tensor"
        )
    return _conj(_T(input))


def _mH(input, op="mH"):
    """The conjugate transpose of the last two dims (for real tensors the view ``mT``;
    complex ones are conjugated into new memory)."""
    return _conj(_mT(input, op))


@tensor_method("adjoint")
def adjoint(input):
    """``input.mH``: the conjugate transpose of the last two dims."""
    return _mH(input, "adjoint")


install(
    T=property(_T),
    mT=property(_mT),
    mH=property(_mH),
    H=property(_H),
)


# -- flips and rolls -------------------------------------------------------------------


@register
class FlipBackward(UnaryOp):
    r"""Autograd node for :math:`y_i = x_{n - 1 - i}` along each dim in ``dims``.

    Saves nothing: flipping is its own inverse and adjoint.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{flip}(g)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"flip"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.flip`` materialised contiguous (a copy, as in PyTorch: the result never
    aliases the input).
    """

    __slots__ = ()
    schema_v1 = OpSchema("flip", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dims):
        return be.flip(x, dims)

    def grad(self, F, g, x, out):
        return F.flip(g, self.params["dims"])


@tensor_method("flip")
def flip(input, *args, dims=None):
    """A copy of ``input`` reversed along ``dims``."""
    nd = input._data.ndim
    dims = _shape_arg(args if dims is None else (dims,), "flip")
    return FlipBackward.call(input, dims=norm_dims(dims, nd, "flip") if dims else ())


@tensor_method("fliplr")
def fliplr(input):
    """``input`` reversed along dim 1 (needs at least 2 dims)."""
    if input._data.ndim < 2:
        raise ShapeError(f"fliplr: input must be >= 2-d, got {input._data.ndim}-d")
    return FlipBackward.call(input, dims=(1,))


@tensor_method("flipud")
def flipud(input):
    """``input`` reversed along dim 0 (needs at least 1 dim)."""
    if input._data.ndim < 1:
        raise ShapeError("flipud: input must be >= 1-d, got 0-d")
    return FlipBackward.call(input, dims=(0,))


@register
class RollBackward(UnaryOp):
    r"""Autograd node for :math:`y_{(i + s) \bmod n} = x_i` along each of ``dims``.

    Saves nothing: the gradient is rolled back by :math:`-s`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g_{(i + s) \bmod n}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"roll"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.roll`` (a copy); ``dims=None`` rolls the flattened tensor and restores
    its shape. Shifts wrap modulo the dim size; empty dims are left as they are.
    """

    __slots__ = ()
    schema_v1 = OpSchema("roll", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shifts, dims):
        return be.roll(x, shifts, dims)

    def _back(self):
        p = self.params
        return tuple(-s for s in p["shifts"]), p["dims"]

    def grad(self, F, g, x, out):
        return F.roll(g, *self._back())


@tensor_method("roll")
def roll(input, shifts, dims=None):
    """``input`` rolled by ``shifts`` along ``dims`` (the flattened tensor when None)."""
    shifts = (shifts,) if isinstance(shifts, numbers.Integral) else _shape_arg((shifts,), "roll")
    if not shifts:
        raise ArgumentError("roll: `shifts` required")
    nd = input._data.ndim
    if dims is not None:
        dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
        if len(shifts) != len(dims):
            raise ShapeError(
                f"roll: shifts and dimensions must align. shifts: {len(shifts)}, dims: {len(dims)}"
            )
    elif len(shifts) != 1:
        raise ShapeError(f"roll: with dims=None, shifts must be a single int, got {shifts}")
    if input._data.size == 0:  # nothing to move: a copy, dims unchecked
        return RollBackward.call(input, shifts=(0,), dims=None)
    if dims is None:
        return RollBackward.call(input, shifts=shifts, dims=None)
    if nd == 0:
        raise DimError(f"roll: dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(norm_dim(d, nd, "roll") for d in dims)
    return RollBackward.call(input, shifts=shifts, dims=dims)


@tensor_method("rot90")
def rot90(input, k=1, dims=(0, 1)):
    """``input`` rotated by ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``."""
    nd = input._data.ndim
    dims = tuple(dims)
    if len(dims) != 2:
        raise ShapeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise ShapeError(f"rot90: expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = norm_dim(dims[0], nd, "rot90"), norm_dim(dims[1], nd, "rot90")
    if d0 == d1:
        raise DimError(
            f"rot90: expected rotation dims to be different, but got dim0 = "
            f"{dims[0]} and dim1 = {dims[1]}"
        )
    k = _int(k, "k", "rot90") % 4
    if k == 1:
        return _swap(FlipBackward.call(input, dims=(d1,)), d0, d1)
    if k == 2:
        return FlipBackward.call(input, dims=tuple(sorted((d0, d1))))
    if k == 3:
        return _swap(FlipBackward.call(input, dims=(d0,)), d0, d1)
    return clone(input)
