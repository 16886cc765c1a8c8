"""An op fuzzer, differential against PyTorch: a seeded random loop of calls of public ops
(functions ``lucid.<op>`` and Tensor methods) with random argument combinations — shapes
with 0-d and empty, dims in and out of range, negative and repeated, every dtype, scalar and
tensor operands — each run in torch and in Lucid. It requires:

- where torch raises, Lucid raises a :class:`lucid.errors.LucidError` that ``except <the
  built-in torch raised>`` catches (unless the call is one of the :data:`LUCID_ACCEPTS`
  overloads torch lacks);
- where torch succeeds, Lucid succeeds with the same dtype, shape and values (NaN at the
  same positions);
- whenever Lucid raises, its message names the op the user called (``adjoint: ...``, not the
  ``mT: ...`` of the view it is built on).

:mod:`tests.test_differential` draws its calls with hypothesis, op family by op family, and
compares gradients too; this loop covers more ops with flatter, more varied arguments
(``norm``'s ``p`` x ``dim`` grid, ``einsum`` of mixed dtypes, ``clamp`` bounds of other
dtypes, ``bincount`` weights, the moments' corrections). ``OP_FUZZ_CALLS`` in the
environment sets the number of calls (default 20 000: a CI budget of a few seconds); a hunt
runs ``OP_FUZZ_CALLS=100000`` with ``OP_FUZZ_SEED`` set to a few values. The seed is fixed, so
a run is reproducible; a failure prints the call's index and arguments.
"""

import math
import os
import re
import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import LucidError

CALLS = int(os.environ.get("OP_FUZZ_CALLS", "20000"))
SEED = int(os.environ.get("OP_FUZZ_SEED", "0"))

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
TOL = {
    "float16": (4e-3, 4e-3),
    "bfloat16": (3e-2, 3e-2),
    "float32": (2e-5, 1e-5),
    "float64": (1e-10, 1e-12),
}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, math.nan, math.inf, -math.inf]


# -- drawing arguments --------------------------------------------------------------------------


class Draw:
    """The random source of one call, keeping a readable record of what it drew."""

    def __init__(self, rng):
        self.rng, self.log = rng, []

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def int(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def coin(self, p=0.5):
        return bool(self.rng.random() < p)

    def shape(self, max_dims=3, max_side=3, min_dims=0):
        nd = self.int(min_dims, max_dims)
        lo = 0 if self.coin(0.2) else 1
        return tuple(self.int(lo, max_side) for _ in range(nd))

    def dtype(self, among=DTYPES):
        return self.pick(among)

    def array(self, shape=None, dtype=None, finite=False):
        """A host array (float64 / int64 / bool) and the dtype both libraries cast it to."""
        shape = self.shape() if shape is None else shape
        dtype = dtype or self.dtype()
        n = int(np.prod(shape))
        if dtype == "bool":
            a = self.rng.random(n) < 0.5
        elif dtype == "uint8":
            a = self.rng.integers(0, 10, n)
        elif dtype in INTS:
            a = self.rng.integers(-8, 9, n)
        else:
            a = np.round(self.rng.uniform(-3, 3, n), 2)
            if not finite and n:
                k = self.rng.random(n) < 0.2
                a[k] = self.rng.choice(SPECIAL, int(k.sum()))
        return Arg(np.asarray(a).reshape(shape), dtype, self.coin(0.2) and len(shape) >= 2)

    def dim(self, nd, none=True):
        """A dim: mostly in range, sometimes out of range."""
        if none and self.coin(0.1):
            return None
        span = max(nd, 1)
        return self.int(-span - 1, span)

    def dims(self, nd):
        """A dim argument of a reduction: None, an int, a tuple / list of 0-3 dims (some
        negative, repeated or out of range)."""
        kind = self.int(0, 5)
        if kind == 0:
            return None
        if kind == 1:
            return self.dim(nd, none=False)
        ds = tuple(self.dim(nd, none=False) for _ in range(self.int(0, 3)))
        return list(ds) if self.coin(0.2) else ds


class Arg:
    """A tensor argument, built the same way in both libraries (optionally a transposed,
    non-contiguous view)."""

    def __init__(self, data, dtype, transposed=False):
        self.data, self.dtype, self.transposed = data, dtype, transposed

    def build(self, M):
        a = np.ascontiguousarray(self.data.T) if self.transposed else self.data
        t = M.tensor(a).to(getattr(M, self.dtype))
        return t.permute(*reversed(range(t.ndim))) if self.transposed else t

    def __repr__(self):
        return f"Arg({self.data.tolist()!r}, {self.dtype}{', T' if self.transposed else ''})"


# -- what Lucid accepts and torch does not ----------------------------------------------------

# Calls that torch's argument parser refuses for want of an overload, which Lucid accepts on
# purpose: a Python number where torch's signature wants a Tensor (``maximum(x, 2)``,
# ``atan2(x, 0.5)``), bounds of ``clamp`` that mix a Tensor and a number, ``keepdim``
# without ``dim`` (it keeps nothing: every dim is reduced), ``view()`` / ``expand()`` /
# ``repeat()`` with no sizes (Lucid's own code expands 0-d tensors by an empty
# ``*shape``: ``x.expand(*())``). Lucid may succeed there, or raise
# a LucidError of its own for another problem of the call (shapes that do not broadcast).
LUCID_ACCEPTS = {
    "must be Tensor, not": {
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "atan2",
        "hypot",
        "copysign",
        "nextafter",
        "ldexp",
        "heaviside",
        "logical_and",
        "logical_xor",
        "bitwise_left_shift",
        "eq",
        "lt",
        "ge",
    },
    "invalid combination of arguments": {
        "clamp",
        "clip",
        "clamp_min",
        "clamp_max",
        "sum",
        "mean",
        "nansum",
        "std",
        "var",
        "std_mean",
        "var_mean",
        "view",
    },
    "missing 1 required positional arguments": {"sum", "mean", "nansum", "expand", "repeat"},
}


def _lucid_accepts(name, terr):
    """Whether torch's error ``terr`` is its parser's refusal of an overload of ``name``
    that Lucid has."""
    return isinstance(terr, TypeError) and any(
        pattern in str(terr) and name in ops for pattern, ops in LUCID_ACCEPTS.items()
    )


# -- comparing ---------------------------------------------------------------------------------


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in _flat(x)]
    return [r]


def _dname(t):
    return str(t.dtype).rsplit(".", 1)[-1]


def _np64(t):
    t = t.detach()
    floating = t.is_floating_point() if isinstance(t, torch.Tensor) else t.dtype.is_floating_point
    return (t.double() if floating else t).numpy()


def _names_op(err, names):
    return any(re.search(rf"(^|[^\w.]){re.escape(n)}([^\w]|$)", str(err)) for n in names)


def compare(names, call, args, *, unordered=(), tol=None):
    """Run ``call(M, *tensors)`` in both libraries; a mismatch as a message, else None.

    ``unordered``: output positions (indices among ties) compared by dtype and shape only."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tout, terr = call(torch, *(a.build(torch) for a in args)), None
        except Exception as e:  # noqa: BLE001 - any torch error: Lucid must raise too
            if re.search(r"not implemented for '(Half|BFloat16|ComplexHalf)'", str(e)):
                return None  # torch's CPU build lacks a half kernel
            tout, terr = None, e
        try:
            lout = call(lucid, *(a.build(lucid) for a in args))
        except LucidError as e:
            if terr is None:
                return f"Lucid raised {type(e).__name__}: {e}; torch succeeded"
            if _lucid_accepts(names[0], terr):
                terr = None  # Lucid's overload found another problem: fine
            if not _names_op(e, names):
                return f"error does not name {names[0]}: {type(e).__name__}: {e}"
            builtin = next(c for c in type(terr or e).__mro__ if c.__module__ == "builtins")
            if not isinstance(e, builtin):
                return f"`except {builtin.__name__}` misses {type(e).__name__}: {e} (torch: {terr})"
            return None
        except Exception as e:  # noqa: BLE001
            return f"non-Lucid {type(e).__name__}: {e} (torch: {terr!r})"
    if terr is not None:
        return (
            None
            if _lucid_accepts(names[0], terr)
            else f"torch raised {type(terr).__name__}: {terr}; Lucid returned {lout!r}"
        )
    lo, to = _flat(lout), _flat(tout)
    if len(lo) != len(to):
        return f"{len(lo)} outputs, torch {len(to)}"
    for k, (l, t) in enumerate(zip(lo, to)):
        if not isinstance(t, torch.Tensor):
            if isinstance(l, lucid.Tensor) or l != t:
                return f"output {k}: {l!r}, torch {t!r}"
            continue
        if not isinstance(l, lucid.Tensor):
            return f"output {k} is a {type(l).__name__}, torch's a Tensor"
        if _dname(l) != _dname(t):
            return f"output {k}: dtype {_dname(l)}, torch {_dname(t)}"
        if tuple(l.shape) != tuple(t.shape):
            return f"output {k}: shape {tuple(l.shape)}, torch {tuple(t.shape)}"
        if k in unordered:
            continue
        lv, tv = _np64(l), _np64(t)
        if _dname(t) in TOL:
            rtol, atol = TOL[tol or _dname(t)]
            same = np.allclose(lv, tv, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = np.array_equal(lv, tv)
        if not same:
            return f"output {k}: values\n{lv}\ntorch\n{tv}"
    return None


# -- the op table --------------------------------------------------------------------------------

GENERATORS = []


def family(fn):
    """Register a generator: ``fn(d)`` draws one call, returning ``(names, call, args)`` or
    ``(names, call, args, options)`` (``compare``'s keywords); ``names[0]`` is the op the
    user calls, whose name every error must carry."""
    GENERATORS.append(fn)
    return fn


def _fn_or_method(d, name, *args, **kw):
    """``M.name(x, *args)`` or ``x.name(*args)`` (drawn)."""
    if d.coin():
        return lambda M, x, *ts: getattr(M, name)(x, *ts, *args, **kw)
    return lambda M, x, *ts: getattr(x, name)(*ts, *args, **kw)


UNARY = [
    "abs",
    "neg",
    "sign",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sin",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
    "isnan",
    "isfinite",
    "logical_not",
    "bitwise_not",
    "square",
    "erf",
    "expm1",
    "log1p",
    "signbit",
    "nan_to_num",
    "positive",
    "angle",
    "conj",
    "sgn",
    "relu",
    "exp2",
]


@family
def unary(d):
    name = d.pick(UNARY)
    # the sign bit of a NaN is its payload's, unspecified: signbit sees finite values only
    return (name,), _fn_or_method(d, name), [d.array(finite=name == "signbit")]


BINARY = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "floor_divide",
    "remainder",
    "fmod",
    "pow",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "atan2",
    "eq",
    "lt",
    "ge",
    "logical_and",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_left_shift",
    "hypot",
    "copysign",
    "xlogy",
    "nextafter",
    "ldexp",
    "heaviside",
    "lerp_w",
]


def _broadcastable(d, shape):
    if d.coin(0.15):
        return d.shape()
    return tuple(1 if d.coin(0.3) else n for n in shape[d.int(0, len(shape)) :])


@family
def binary(d):
    name = d.pick(BINARY)
    x = d.array()
    if d.coin(0.25) and name != "lerp_w":  # a Python number as the second operand
        s = d.pick([0, 1, 2, -3, 0.5, -1.5, True, 2.0])
        if name == "pow" and s == 0.5 and x.dtype == "float16":
            # torch's float16 ** 0.5 takes pow ((-inf) ** 0.5 = inf), its other dtypes sqrt
            # (nan); Lucid takes sqrt for all (PowScalarBackward's Notes)
            x = d.array(x.data.shape, x.dtype, finite=True)
        return (name,), _fn_or_method(d, name, s), [x]
    # copysign takes the sign bit of a NaN, its payload's (unspecified): finite signs only;
    # ldexp: torch's 2 ** 100 overflows a half dtype (0 * inf = nan), Lucid's is float32
    y = d.array(
        _broadcastable(d, x.data.shape),
        x.dtype if d.coin(0.4) else None,
        finite=name in ("copysign", "ldexp"),
    )
    if name == "lerp_w":  # lerp with a number weight
        return ("lerp",), _fn_or_method(d, "lerp", 0.25), [x, y]
    return (name,), _fn_or_method(d, name), [x, y], {"tol": _narrowest(x, y)}


def _narrowest(*args):
    """The tolerance dtype of a mixed-precision call: that of its narrowest float operand
    (torch may round an intermediate there, ``ldexp``'s ``2 ** other`` in bfloat16)."""
    dts = {a.dtype for a in args}
    if len(dts & set(FLOATS)) < 2:
        return None
    return next(f for f in ("bfloat16", "float16", "float32") if f in dts)


def _kw_dim(d, nd):
    """Keyword arguments ``dim`` / ``keepdim`` of a reduction (either may be left out)."""
    kw = {}
    if d.coin(0.85):
        kw["dim"] = d.dims(nd)
    if d.coin(0.6):
        kw["keepdim"] = d.coin()
    return kw


REDUCTIONS = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "amax",
    "amin",
    "all",
    "any",
    "count_nonzero",
    "logsumexp",
]


@family
def reduction(d):
    name = d.pick(REDUCTIONS)
    x = d.array()
    kw = _kw_dim(d, x.data.ndim)
    if name == "count_nonzero":
        kw.pop("keepdim", None)
    if name == "logsumexp" and kw.get("dim") in (None, (), []):
        # torch's logsumexp needs a dim, and fails inside its kernel on dim=()
        kw["dim"] = d.dim(x.data.ndim, none=False)
    if name in ("sum", "mean", "nansum") and d.coin(0.2):  # with a dtype=
        dt = d.pick(["float64", "float32", "int64", "int32", "bool", "float16"])
        if dt in INTS:  # inf and nan to an integer: undefined (C), finite values only
            x = d.array(x.data.shape, x.dtype, finite=True)
        return (
            (name,),
            lambda M, t: getattr(M, name)(t, dtype=getattr(M, dt), **kw),
            [x],
            {"tol": x.dtype if x.dtype in ("float16", "bfloat16") else None},
        )
    tol = "float32" if x.dtype in ("float16", "bfloat16") else None
    return (name,), _fn_or_method(d, name, **kw), [x], {"tol": tol and x.dtype}


@family
def misc(d):
    """diff, unfold, trace, diag, where over numbers, cumsum with a dtype, nan_to_num."""
    name = d.pick(
        [
            "diff",
            "unfold",
            "trace",
            "diag",
            "where_numbers",
            "cumsum_dtype",
            "nan_to_num",
            "flatten_range",
            "squeeze_all",
            "narrow_tensor",
        ]
    )
    x = d.array()
    nd = x.data.ndim
    if name == "diff":
        n, dim = d.int(-1, 3), d.dim(nd, False)
        return (name,), _fn_or_method(d, "diff", n, dim), [x]
    if name == "unfold":
        return _unfold(d, x)
    if name == "trace":
        if x.dtype == "bool":  # refused by another issue-24 fix (trace of bool)
            x = d.array(x.data.shape, "int64")
        return (name,), _fn_or_method(d, "trace"), [x]
    if name == "diag":
        return (name,), _fn_or_method(d, "diag", d.int(-2, 2)), [x]
    if name == "where_numbers":
        a, b = d.pick([0, 1.5, True, -2]), d.pick([0, 2.5, False, 3])
        return ("where",), lambda M, c: M.where(c, a, b), [d.array(dtype="bool")]
    if name == "cumsum_dtype":
        return _cumsum(d, x, d.pick(["float64", "int64", "int16", "bool", "float16"]))
    if name == "nan_to_num":
        kw = {
            k: d.pick([None, 0.0, 5, -1e30, math.inf])
            for k in ("nan", "posinf", "neginf")
            if d.coin()
        }
        return (name,), _fn_or_method(d, "nan_to_num", **kw), [x]
    if name == "flatten_range":
        return ("flatten",), _fn_or_method(d, "flatten", d.dim(nd, False), d.dim(nd, False)), [x]
    if name == "squeeze_all":
        return (
            ("squeeze",),
            _fn_or_method(d, "squeeze", tuple(d.dim(nd, False) for _ in range(d.int(0, 3)))),
            [x],
        )
    start = Arg(np.array(d.int(-2, 2)), d.pick(["int64", "int64", "float32"]))
    dim = d.dim(nd, False)
    return ("narrow",), lambda M, t, st: t.narrow(dim, st, 1), [x, start]


def _unfold(d, x):
    dim, size, step = d.dim(x.data.ndim, False), d.int(-1, 3), d.int(-1, 2)
    return ("unfold",), lambda M, t: t.unfold(dim, size, step), [x]


def _cumsum(d, x, dt):
    dim = d.dim(x.data.ndim, False)
    if dt in INTS:  # inf and nan to an integer: undefined (C), finite values only
        x = d.array(x.data.shape, x.dtype, finite=True)
    return (
        ("cumsum",),
        lambda M, t: M.cumsum(t, dim, dtype=getattr(M, dt)),
        [x],
        {"tol": "float16" if "float16" in (dt, x.dtype) or x.dtype == "bfloat16" else None},
    )


ONE_DIM_REDUCTIONS = [
    "prod",
    "max",
    "min",
    "argmax",
    "argmin",
    "median",
    "nanmedian",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "mode",
    "logcumsumexp",
]


@family
def one_dim_reduction(d):
    name = d.pick(ONE_DIM_REDUCTIONS)
    x = d.array()
    if name in ("cummax", "cummin") or (name in ("median", "nanmedian") and x.dtype not in FLOATS):
        # torch's cummax / cummin skip the dim check on an empty input, and its median of
        # an empty integer tensor is an arbitrary number (Lucid raises): not drawn empty
        x = d.array(tuple(max(n, 1) for n in x.data.shape), x.dtype)
    if name == "mode":  # NaN: torch's mode counts NaNs as equal, Lucid's does not (left)
        x = d.array(x.data.shape, x.dtype, finite=True)
    nd = x.data.ndim
    needs_dim = name in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp")
    args = ()
    if needs_dim or d.coin(0.7):
        args = (d.dim(nd, none=name in ("argmax", "argmin")),)
        if not needs_dim and d.coin(0.5):
            args += (d.coin(),)
    pairs = name in ("max", "min", "median", "nanmedian", "mode", "cummax", "cummin")
    unordered = (1,) if pairs else ()
    tol = x.dtype if x.dtype in ("float16", "bfloat16") else None
    return (name,), _fn_or_method(d, name, *args), [x], {"unordered": unordered, "tol": tol}


@family
def moments(d):
    """std / var / std_mean / var_mean with ``dim`` positional or keyword, ``unbiased``
    positional or keyword, or ``correction`` (0 to past the reduced count)."""
    name = d.pick(["std", "var", "std_mean", "var_mean"])
    x = d.array()
    kind = d.int(0, 3)
    if kind == 0:  # (input, unbiased) - the legacy overload
        args, kw = (d.coin(),), {}
    elif kind == 1:  # (input, dim, unbiased, keepdim)
        args = (d.dims(x.data.ndim), d.coin()) + ((d.coin(),) if d.coin() else ())
        kw = {}
    else:
        args, kw = (), _kw_dim(d, x.data.ndim)
        if d.coin(0.7):
            kw["correction"] = d.pick([0, 1, 2, 3, 5, 0.5, -1, None])
        elif d.coin():
            kw["unbiased"] = d.coin()
    # torch's one-pass (Welford) var_mean gives a nan mean for [inf, 0], unlike its mean();
    # Lucid's mean output is mean()'s, as its docstring says: the mean is compared with mean
    tol = "float32" if x.dtype in ("float16", "bfloat16") else None
    if name.endswith("_mean") and x.dtype in FLOATS and not np.isfinite(x.data).all():
        moment = name[:-5]

        def call(M, t):
            if M is lucid:
                return getattr(M, name)(t, *args, **kw)
            m = getattr(M, moment)(t, *args, **kw)
            dim = kw.get("dim", args[0] if kind == 1 else None)
            keep = kw.get("keepdim", args[2] if kind == 1 and len(args) > 2 else False)
            return m, M.mean(t, () if dim is None else dim, keep)

        return (name,), call, [x], {"tol": tol}
    if name.endswith("_mean"):  # no Tensor method in torch
        return (name,), lambda M, t: getattr(M, name)(t, *args, **kw), [x], {"tol": tol}
    return (name,), _fn_or_method(d, name, *args, **kw), [x], {"tol": tol}


NORM_PS = [None, "fro", "nuc", math.inf, -math.inf, 0, 1, -1, 2, -2, 3, 0.5]


def _norm_dim(d, nd):
    kind = d.int(0, 6)
    span = max(nd, 1)
    if kind == 0:
        return None
    if kind == 1:
        return d.int(-span, span - 1)
    if kind == 2:
        return (d.int(-span, span - 1),)
    if kind == 3:
        return (d.int(-span, span - 1), d.int(-span, span - 1))
    if kind == 4:
        return tuple(d.int(-span, span - 1) for _ in range(3))
    if kind == 5:
        return d.int(-span - 2, span + 1)
    return [d.int(-span, span - 1)] * 2


@family
def norms(d):
    """``lucid.norm``, ``Tensor.norm`` and ``linalg.norm`` / ``vector_norm`` /
    ``matrix_norm`` over every ``p`` x ``dim`` x ``keepdim``."""
    x = d.array(dtype=d.dtype(FLOATS + ("int64", "bool", "float32", "float64")), finite=d.coin(0.7))
    which = d.pick(["norm", "Tensor.norm", "linalg.norm", "vector_norm", "matrix_norm"])
    p = d.pick(NORM_PS)
    dim = _norm_dim(d, x.data.ndim)
    kw = {"keepdim": d.coin()} if d.coin(0.7) else {}
    tol = x.dtype if x.dtype in ("float16", "bfloat16") else None
    if which == "norm":
        return ("norm",), lambda M, t: M.norm(t, p, dim, **kw), [x], {"tol": tol}
    if which == "Tensor.norm":
        return ("norm",), lambda M, t: t.norm(p, dim, **kw), [x], {"tol": tol}
    if which == "linalg.norm":
        return (
            ("linalg.norm", "norm"),
            lambda M, t: M.linalg.norm(t, p, dim, **kw),
            [x],
            {"tol": tol},
        )
    if which == "vector_norm":
        p = d.pick([2, 1, 0, math.inf, -math.inf, -1, 3, 0.5, -2, "fro"])
        return (
            ("linalg.vector_norm", "vector_norm"),
            lambda M, t: M.linalg.vector_norm(t, p, dim, **kw),
            [x],
            {"tol": tol},
        )
    p = d.pick(["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2, 3, 0])
    dim = d.pick([(-2, -1), (0, 1), (1, 0), (0,), (0, 0), (1, 2), (-3, -1), 0, None])
    args = (p,) if dim is None else (p, dim)
    return (
        ("linalg.matrix_norm", "matrix_norm"),
        lambda M, t: M.linalg.matrix_norm(t, *args, **kw),
        [x],
        {"tol": tol},
    )


def _permutation(d, nd):
    """Mostly a permutation of ``nd`` dims (some written negative), else random dims."""
    if d.coin(0.7):
        return tuple(int(i) - (nd if d.coin(0.3) else 0) for i in d.rng.permutation(nd))
    return tuple(d.dim(nd, False) for _ in range(max(nd + d.pick([0, 1, -1]), 0)))


SHAPE = {
    "reshape": lambda d, nd: _fn_or_method(
        d, "reshape", d.pick([(-1,), (2, -1), (0,), (1,), (-1, 2), (3, -1), (-1, -1), ()])
    ),
    "view": lambda d, nd: (lambda sh: lambda M, x: x.view(*sh))(
        d.pick([(-1,), (2, -1), (0,), (1,), (-1, 1), (-1, -1), (-2,), ()])
    ),
    "transpose": lambda d, nd: _fn_or_method(d, "transpose", d.dim(nd, False), d.dim(nd, False)),
    "swapaxes": lambda d, nd: _fn_or_method(d, "swapaxes", d.dim(nd, False), d.dim(nd, False)),
    "swapdims": lambda d, nd: _fn_or_method(d, "swapdims", d.dim(nd, False), d.dim(nd, False)),
    "t": lambda d, nd: _fn_or_method(d, "t"),
    "adjoint": lambda d, nd: _fn_or_method(d, "adjoint"),
    "mT": lambda d, nd: lambda M, x: x.mT,
    "mH": lambda d, nd: lambda M, x: x.mH,
    "H": lambda d, nd: lambda M, x: x.H,
    "T": lambda d, nd: lambda M, x: x.T,
    "permute": lambda d, nd: _fn_or_method(d, "permute", _permutation(d, nd)),
    "squeeze": lambda d, nd: _fn_or_method(
        d, "squeeze", *d.pick([(), (d.dim(nd, False),), ((d.dim(nd, False), d.dim(nd, False)),)])
    ),
    "unsqueeze": lambda d, nd: _fn_or_method(d, "unsqueeze", d.int(-nd - 2, nd + 1)),
    "flatten": lambda d, nd: _fn_or_method(
        d, "flatten", *d.pick([(), (d.dim(nd, False),), (d.dim(nd, False), d.dim(nd, False))])
    ),
    "unflatten": lambda d, nd: _fn_or_method(
        d, "unflatten", d.dim(nd, False), d.pick([(1, -1), (2, -1), (-1,), (0, -1)])
    ),
    "movedim": lambda d, nd: _fn_or_method(
        d,
        "movedim",
        *d.pick(
            [
                (d.dim(nd, False), d.dim(nd, False)),
                ((d.dim(nd, False), d.dim(nd, False)), (d.dim(nd, False), d.dim(nd, False))),
            ]
        ),
    ),
    "narrow": lambda d, nd: _fn_or_method(
        d, "narrow", d.dim(nd, False), d.int(-3, 3), d.int(-1, 3)
    ),
    "select": lambda d, nd: _fn_or_method(d, "select", d.dim(nd, False), d.int(-3, 3)),
    "roll": lambda d, nd: _fn_or_method(
        d,
        "roll",
        *d.pick(
            [
                (d.int(-4, 4),),
                (d.int(-4, 4), d.dim(nd, False)),
                ((d.int(-4, 4), 1), (d.dim(nd, False), d.dim(nd, False))),
                ((1,), (0, 1)),
            ]
        ),
    ),
    "flip": lambda d, nd: _fn_or_method(
        d, "flip", d.pick([(d.dim(nd, False),), (d.dim(nd, False), d.dim(nd, False)), ()])
    ),
    "repeat": lambda d, nd: (lambda reps: lambda M, x: x.repeat(*reps))(
        tuple(d.int(0, 2) for _ in range(d.int(0, nd + 1)))
    ),
    "tile": lambda d, nd: _fn_or_method(
        d, "tile", tuple(d.int(0, 2) for _ in range(d.int(0, nd + 1)))
    ),
    "expand": lambda d, nd: (lambda sh: lambda M, x: x.expand(*sh))(
        tuple(d.pick([-1, 1, 2, 3, 0]) for _ in range(d.int(max(nd - 1, 0), nd + 1)))
    ),
    "split": lambda d, nd: _fn_or_method(
        d, "split", d.pick([1, 2, 0, [1, 1], [1, 2], [0, 3]]), d.dim(nd, False)
    ),
    "chunk": lambda d, nd: _fn_or_method(d, "chunk", d.int(0, 3), d.dim(nd, False)),
    "tensor_split": lambda d, nd: _fn_or_method(
        d, "tensor_split", d.pick([1, 2, 3, [1], [1, 2], (0, 5)]), d.dim(nd, False)
    ),
    "unbind": lambda d, nd: _fn_or_method(d, "unbind", d.dim(nd, False)),
    "diagonal": lambda d, nd: _fn_or_method(
        d, "diagonal", d.int(-2, 2), d.dim(nd, False), d.dim(nd, False)
    ),
    "tril": lambda d, nd: _fn_or_method(d, "tril", d.int(-2, 2)),
    "triu": lambda d, nd: _fn_or_method(d, "triu", d.int(-2, 2)),
    "rot90": lambda d, nd: _fn_or_method(
        d, "rot90", d.int(-2, 3), (d.dim(nd, False), d.dim(nd, False))
    ),
    "ravel": lambda d, nd: _fn_or_method(d, "ravel"),
    "atleast_2d": lambda d, nd: lambda M, x: M.atleast_2d(x),
    "fliplr": lambda d, nd: lambda M, x: M.fliplr(x),
    # torch's repeat_interleave of a 0-d tensor refuses dim 0 and -1 (it checks the dim
    # after making the input 1-d: "expected ... [-1, 0], but got 1"): not drawn
    "repeat_interleave": lambda d, nd: _fn_or_method(
        d, "repeat_interleave", d.int(0, 2), d.dim(nd) if nd else d.pick([None, 1, -2])
    ),
}


@family
def shape_op(d):
    name = d.pick(sorted(SHAPE))
    x = d.array()
    return (name,), SHAPE[name](d, x.data.ndim), [x]


def _index(d, shape, dim, *, tile=True):
    """An int64 index array for ``shape`` along ``dim``: mostly in range, sometimes out of
    range or negative; ``tile``: of ``shape`` with size 0-3 along ``dim`` (gather's)."""
    nd = len(shape)
    size = shape[dim] if -nd <= dim < nd else 1
    lo, hi = (-size, size - 1) if d.coin(0.8) else (-size - 2, size + 2)
    n = d.int(0, 3)
    if tile:
        out = list(shape)
        if -nd <= dim < nd:
            out[dim] = n
        out = [
            min(s, d.int(0, s)) if i != dim % max(nd, 1) and d.coin(0.2) else s
            for i, s in enumerate(out)
        ]
    else:
        out = [n]
    if hi < lo:
        hi = lo
    return Arg(
        d.rng.integers(lo, hi + 1, int(np.prod(out))).reshape(out),
        d.pick(["int64"] * 6 + ["int32", "int16", "float32", "uint8"]),
    )


INDEXING = [
    "gather",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_select",
    "take_along_dim",
    "take",
    "index_add",
    "index_fill",
    "index_copy",
    "masked_select",
    "masked_fill",
]


@family
def indexing(d):
    name = d.pick(INDEXING)
    x = d.array(shape=d.shape(min_dims=0))
    if name in ("index_add", "index_copy", "index_fill") and not x.data.size:
        x = d.array(shape=(2,) * x.data.ndim)  # torch checks the indices inside its loop
        #                                         over self, which an empty self never enters
    nd = x.data.ndim
    dim = d.dim(nd, none=False)
    if name in ("gather", "take_along_dim"):
        i = _index(d, x.data.shape, dim)
        if name == "take_along_dim":
            if d.coin(0.2):  # torch's flattening is a view: contiguous input only
                x.transposed = False
                return (name,), lambda M, t, ix: M.take_along_dim(t, ix.flatten()), [x, i]
            return (name,), lambda M, t, ix: t.take_along_dim(ix, dim), [x, i]
        return (name,), lambda M, t, ix: M.gather(t, dim, ix), [x, i]
    if name in ("scatter", "scatter_add", "scatter_reduce"):
        i = _index(d, x.data.shape, dim)
        src = d.array(i.data.shape, x.dtype if d.coin(0.8) else None)
        if name == "scatter" and d.coin(0.3):
            v = d.pick([1, 2.5, True])
            return (name,), lambda M, t, ix: M.scatter(t, dim, ix, v), [x, i]
        if name == "scatter_reduce":
            red = d.pick(["sum", "prod", "mean", "amax", "amin", "max"])
            return (name,), lambda M, t, ix, s: M.scatter_reduce(t, dim, ix, s, red), [x, i, src]
        return (name,), lambda M, t, ix, s: getattr(M, name)(t, dim, ix, s), [x, i, src]
    if name == "take":
        return (name,), _fn_or_method(d, "take"), [x, _index(d, (x.data.size,), 0, tile=False)]
    if name == "masked_select":
        m = d.array(_broadcastable(d, x.data.shape), d.pick(["bool"] * 4 + ["uint8"]))
        return (name,), _fn_or_method(d, name), [x, m]
    if name == "masked_fill":
        m = d.array(_broadcastable(d, x.data.shape), d.pick(["bool"] * 4 + ["int64"]))
        v = d.pick([0, 2.5, -1, True, math.nan])
        return (name,), lambda M, t, k: t.masked_fill(k, v), [x, m]
    i = _index(d, x.data.shape, dim, tile=False)
    if name == "index_select":
        return (name,), lambda M, t, ix: M.index_select(t, dim, ix), [x, i]
    if name == "index_fill":
        v = d.pick([0, 2.5, -1, True])
        return (name,), lambda M, t, ix: t.index_fill(dim, ix, v), [x, i]
    shape = list(x.data.shape)
    if -nd <= dim < nd:
        shape[dim] = i.data.size
    src = d.array(tuple(shape), x.dtype if d.coin(0.8) else None)
    return (name,), lambda M, t, ix, s: getattr(t, name)(dim, ix, s), [x, i, src]


@family
def join(d):
    name = d.pick(
        [
            "cat",
            "stack",
            "hstack",
            "vstack",
            "dstack",
            "column_stack",
            "where",
            "concat",
            "row_stack",
        ]
    )
    x = d.array()
    shape = list(x.data.shape)
    if shape and d.coin(0.7):
        shape[d.int(0, len(shape) - 1)] = d.int(0, 3)
    elif d.coin(0.3):
        shape = list(d.shape())
    y = d.array(tuple(shape), x.dtype if d.coin(0.6) else None)
    if name == "where":
        c = d.array(_broadcastable(d, x.data.shape), d.pick(["bool"] * 4 + ["uint8"]))
        if d.coin(0.2):
            s = d.pick([0, 1.5, True])
            return (name,), lambda M, k, a, b: M.where(k, a, s), [c, x, y]
        return (name,), lambda M, k, a, b: M.where(k, a, b), [c, x, y]
    dim = d.dim(x.data.ndim + 1, none=False)
    if name in ("cat", "stack", "concat"):
        return (name,), lambda M, a, b: getattr(M, name)([a, b], dim), [x, y]
    return (name,), lambda M, a, b: getattr(M, name)([a, b]), [x, y]


# equation, operand shapes (``n`` is a side drawn per call)
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 2)]),
    ("i,i->", [(3,), (3,)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("ij", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 0)]),
    ("i,i", [(0,), (0,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,jk->ik", [(2, 3), (4, 2)]),
    ("i->", [()]),
    ("->", [()]),
    ("i,j,k->ijk", [(2,), (1,), (2,)]),
    ("iij->j", [(2, 2, 3)]),
    ("ij,kj->ik", [(1, 3), (2, 3)]),
]


def _random_equation(d):
    """One or two terms over labels ``abc`` (repeats allowed), each dim of size 1 now and
    then (it broadcasts), an explicit output (a subset) or an implicit one."""
    side = {c: d.int(0 if d.coin(0.1) else 2, 3) for c in "abc"}
    terms, shapes = [], []
    for _ in range(d.int(1, 2)):
        term = "".join(d.pick("abc") for _ in range(d.int(0, 3)))
        terms.append(term)
        shapes.append(tuple(1 if d.coin(0.2) else side[c] for c in term))
    eq = ",".join(terms)
    if d.coin(0.7):
        eq += "->" + "".join(c for c in sorted(set("".join(terms))) if d.coin())
    return eq, shapes


@family
def einsum(d):
    eq, shapes = d.pick(EINSUM) if d.coin(0.4) else _random_equation(d)
    base = d.dtype(DTYPES)
    args = [d.array(s, base if d.coin(0.5) else None, finite=True) for s in shapes]
    # torch rounds at every step in the dtype it has reached, Lucid once, in the widest:
    # the tolerance of the narrowest float operand
    tol = next(
        (f for f in ("bfloat16", "float16", "float32") if f in {a.dtype for a in args}), None
    )
    if d.coin(0.5):
        return ("einsum",), lambda M, *ts: M.einsum(eq, *ts), args, {"tol": tol}
    return ("einsum",), lambda M, *ts: M.einsum(eq, list(ts)), args, {"tol": tol}


def _bound(d, x):
    """A clamp bound: None, a Python number, or a tensor (broadcastable, of any dtype)."""
    k = d.int(0, 4)
    if k == 0:
        return None
    if k <= 2:
        return d.pick([0, 1, -2, 3, 0.5, -1.5, 2.5, True, math.nan, math.inf, 300, -200])
    return d.array(_broadcastable(d, x.data.shape), finite=d.coin(0.8))


@family
def clamp(d):
    name = d.pick(["clamp", "clip", "clamp_min", "clamp_max"])
    x = d.array()
    lo, hi = _bound(d, x), _bound(d, x)
    tensors = [x] + [b for b in (lo, hi) if isinstance(b, Arg)]

    def call(M, t, *bs):
        it = iter(bs)
        a = next(it) if isinstance(lo, Arg) else lo
        b = next(it) if isinstance(hi, Arg) else hi
        if name == "clamp_min":
            return M.clamp_min(t, a)
        if name == "clamp_max":
            return M.clamp_max(t, a)
        if d_kw:
            return getattr(t, name)(min=a, max=b)
        return getattr(M, name)(t, a, b)

    d_kw = d.coin()
    return (name,), call, tensors


@family
def bincount(d):
    n = d.int(0, 6)
    dt = d.pick(["int64"] * 4 + ["int32", "uint8", "int16", "bool", "float32", "int8"])
    x = Arg(d.rng.integers(-1 if d.coin(0.1) else 0, 5, n), dt)
    if d.coin(0.1):
        x = Arg(x.data.reshape(1, -1), dt)
    minlength = d.pick([0, 0, 3, 7, -1])
    if d.coin(0.4):
        return ("bincount",), _fn_or_method(d, "bincount", minlength=minlength), [x]
    w = d.array((n + (1 if d.coin(0.1) else 0),), finite=True)
    return ("bincount",), lambda M, t, ws: M.bincount(t, ws, minlength), [x, w]


@family
def sorting(d):
    name = d.pick(["sort", "argsort", "topk", "kthvalue", "msort", "argmax", "argmin"])
    x = d.array()
    nd = x.data.ndim
    dim = d.dim(nd, none=False)
    if name == "sort":
        desc = d.coin()
        return (name,), _fn_or_method(d, "sort", dim=dim, descending=desc, stable=True), [x]
    if name == "argsort":
        desc = d.coin()
        return (name,), _fn_or_method(d, "argsort", dim=dim, descending=desc, stable=True), [x]
    if name in ("topk", "kthvalue"):
        k = d.int(-1, 4)
        return (name,), _fn_or_method(d, name, k, dim), [x], {"unordered": (1,)}
    if name == "msort":
        return (name,), lambda M, t: M.msort(t), [x]
    return (name,), _fn_or_method(d, name, dim=d.dim(nd), keepdim=d.coin()), [x]


# -- the run -----------------------------------------------------------------------------------


def test_ops_match_torch_under_random_calls():
    rng = np.random.default_rng(SEED)
    failures = []
    for i in range(CALLS):
        d = Draw(rng)
        case = d.pick(GENERATORS)(d)
        names, call, args = case[:3]
        opts = case[3] if len(case) > 3 else {}
        msg = compare(names, call, args, **opts)
        if msg is not None:
            failures.append(f"#{i} {names[0]} {args}: {msg}")
    assert not failures, f"{len(failures)} of {CALLS} calls differ from torch:\n" + "\n".join(
        failures[:30]
    )


# -- exhaustive grids --------------------------------------------------------------------------

NORM_DIMS = [None, 0, -1, (0,), (-1,), (0, 1), (-2, -1), (1, 0), (0, 1, 2), (0, 0), [1, 1], (), 3]
NORM_INPUTS = [
    ((2, 3, 2), "float64"),
    ((3,), "float32"),
    ((2, 3), "float32"),
    ((), "float64"),
    ((0, 3), "float32"),
    ((2, 2), "float16"),
    ((2, 2), "int64"),
]


@pytest.mark.parametrize("shape,dtype", NORM_INPUTS, ids=[f"{s}-{d}" for s, d in NORM_INPUTS])
def test_norms_accept_and_refuse_as_torch_over_the_p_dim_grid(shape, dtype):
    """Every ``p`` x ``dim`` x ``keepdim`` of ``lucid.norm``, ``Tensor.norm``,
    ``linalg.norm``, ``linalg.vector_norm`` and ``linalg.matrix_norm``: torch's accept /
    refuse decision, and where it accepts, its dtype, shape and values."""
    rng = np.random.default_rng(1)
    n = int(np.prod(shape))
    x = Arg(np.round(rng.uniform(-3, 3, n), 2).reshape(shape), dtype)
    calls = []
    for p in NORM_PS:
        for dim in NORM_DIMS:
            for kd in (False, True):
                calls += [
                    (("norm",), lambda M, t, p=p, dim=dim, kd=kd: M.norm(t, p, dim, kd)),
                    (("norm",), lambda M, t, p=p, dim=dim, kd=kd: t.norm(p, dim, kd)),
                    (
                        ("linalg.norm",),
                        lambda M, t, p=p, dim=dim, kd=kd: M.linalg.norm(t, p, dim, kd),
                    ),
                    (
                        ("linalg.vector_norm",),
                        lambda M, t, p=p, dim=dim, kd=kd: M.linalg.vector_norm(t, p, dim, kd),
                    ),
                    (
                        ("linalg.matrix_norm",),
                        lambda M, t, p=p, dim=dim, kd=kd: M.linalg.matrix_norm(t, p, dim, kd),
                    ),
                ]
    tol = dtype if dtype == "float16" else None
    failures = [
        f"{names[0]}: {msg}"
        for names, call in calls
        if (msg := compare(names, call, [x], tol=tol)) is not None
    ]
    assert not failures, f"{len(failures)} of {len(calls)}:\n" + "\n".join(failures[:20])


# -- regressions: one per bug this fuzzer found -------------------------------------------------


def _same(l, t):
    assert _dname(l) == _dname(t) and tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np64(l), _np64(t), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize(
    "eq,dtypes",
    [
        ("ij,ij->ij", ("float32", "float64")),  # a product: promotes
        ("ij,ij->ij", ("int64", "float32")),
        ("ij,ij->ij", ("int8", "uint8")),  # int16
        ("ij->", ("int16",)),  # a sum on one operand: int64
        ("ij->ji", ("int16",)),  # no sum: int16 kept
        ("ij,j->i", ("uint8", "uint8")),  # a contraction: the operands' dtype
        ("ij,jk->ik", ("int8", "int8")),
        ("i,j->ij", ("bool", "bool")),
        ("ij,k->k", ("int16", "float32")),  # i, j summed on operand 0 (int64), then * f32
    ],
)
def test_einsum_dtypes_are_torchs(eq, dtypes):
    rng = np.random.default_rng(0)
    terms = eq.split("->")[0].split(",")
    ops = [rng.integers(0, 3, (2,) * len(t)) for t in terms]
    got = lucid.einsum(eq, *[lucid.tensor(o).to(getattr(lucid, d)) for o, d in zip(ops, dtypes)])
    want = torch.einsum(eq, *[torch.tensor(o).to(getattr(torch, d)) for o, d in zip(ops, dtypes)])
    _same(got, want)


def test_einsum_refuses_what_torch_refuses():
    for eq, dts in (
        ("ij,jk->ik", ("float32", "float64")),
        ("i,i->", ("bool", "bool")),
        ("ij,ij", ("int8", "uint8")),
        ("ij,i->", ("int8", "int8")),
    ):  # int8 summed to int64 first
        ops = [
            M.ones(*(2,) * len(t), dtype=getattr(M, d))
            for M in (lucid,)
            for t, d in zip(eq.split("->")[0].split(","), dts)
        ]
        with pytest.raises(RuntimeError):
            torch.einsum(
                eq,
                *[
                    torch.ones(*(2,) * len(t), dtype=getattr(torch, d))
                    for t, d in zip(eq.split("->")[0].split(","), dts)
                ],
            )
        with pytest.raises(lucid.errors.DTypeError, match="^einsum: "):
            lucid.einsum(eq, *ops)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
def test_moments_of_nothing_are_nan_for_every_correction():
    for fn in ("var", "std"):
        for c in (-1, 0, 1, 3):
            _same(
                getattr(lucid, fn)(lucid.zeros(0), correction=c),
                getattr(torch, fn)(torch.zeros(0), correction=c),
            )
            _same(
                lucid.var_mean(lucid.zeros(2, 0), 1, correction=c)[0],
                torch.var_mean(torch.zeros(2, 0), 1, correction=c)[0],
            )


def test_clamp_dtypes_are_torchs():
    u8, i8 = lucid.tensor([4, 7], dtype=lucid.uint8), lucid.tensor([-4, 3], dtype=lucid.int8)
    tu8, ti8 = torch.tensor([4, 7], dtype=torch.uint8), torch.tensor([-4, 3], dtype=torch.int8)
    _same(
        u8.clamp(lucid.tensor(-2.5, dtype=lucid.float16), math.inf),  # a number beside:
        tu8.clamp(torch.tensor(-2.5, dtype=torch.float16), math.inf),
    )  # both are numbers
    _same(
        u8.clamp(lucid.tensor(2.5, dtype=lucid.float16)),  # a tensor alone
        tu8.clamp(torch.tensor(2.5, dtype=torch.float16)),
    )
    _same(
        i8.clamp(lucid.tensor(1, dtype=lucid.uint8), 2),
        ti8.clamp(torch.tensor(1, dtype=torch.uint8), 2),
    )
    _same(i8.clamp(5, -1), ti8.clamp(5, -1))  # min > max: max
    _same(i8.clamp(0.5), ti8.clamp(0.5))  # float bound: float
    _same(
        lucid.tensor([True, False]).clamp_min(lucid.tensor(True)),
        torch.tensor([True, False]).clamp_min(torch.tensor(True)),
    )


def test_bincount_dtypes_are_torchs():
    x, tx = lucid.tensor([0, 2, 2]), torch.tensor([0, 2, 2])
    for dt in ("float16", "bfloat16", "float32", "float64", "int32", "bool"):
        w = lucid.tensor([1, 0, 1]).to(getattr(lucid, dt))
        tw = torch.tensor([1, 0, 1]).to(getattr(torch, dt))
        _same(lucid.bincount(x, w), torch.bincount(tx, tw))
    _same(lucid.bincount(x[:0], lucid.ones(0), 3), torch.bincount(tx[:0], torch.ones(0), 3))
