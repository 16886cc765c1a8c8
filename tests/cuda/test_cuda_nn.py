"""Every layer of :mod:`lucid.nn` on the device under test against the same layer on the CPU.

Each case builds a module on the CPU under a fixed seed, deep-copies it onto ``DEVICE`` and
runs the same inputs through both: outputs (values, dtypes, device), input gradients, every
parameter's gradient and every buffer must agree within the dtype's tolerance. The backward
pass contracts each output with a fixed random cotangent, so no gradient is trivially one.
Random layers (dropout kinds, RReLU in training) are compared by shape and statistics.
"""

import copy
import os
import tempfile

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

from .conftest import DEVICE

pytestmark = [pytest.mark.cuda, pytest.mark.filterwarnings("ignore:kl_div. reduction .mean.")]

DTYPES = {"float32": lucid.float32, "float64": lucid.float64, "bfloat16": lucid.bfloat16}
# (rtol, atol); atol is scaled by the reference's largest magnitude (long sums)
TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11), "bfloat16": (3e-2, 3e-2)}
F32, F64, BF16 = ("float32",), ("float32", "float64"), ("float32", "bfloat16")
ALL = ("float32", "float64", "bfloat16")


# -- input specifications ----------------------------------------------------------------


class R:
    """A random float input of ``shape`` (normal * scale + shift, ``pos``: |.| + 0.1) in the
    case's dtype; ``grad``: a leaf requiring grad; ``view``: given as a non-contiguous view,
    ``"T"`` (a transpose of the last two axes) or ``"slice"`` (every other last-axis item)."""

    def __init__(self, *shape, scale=1.0, shift=0.0, pos=False, grad=True, view=None):
        self.shape, self.scale, self.shift, self.pos = shape, scale, shift, pos
        self.grad, self.view = grad, view

    def base_shape(self):
        s = list(self.shape)
        if self.view == "T":
            s[-1], s[-2] = s[-2], s[-1]
        elif self.view == "slice":
            s[-1] *= 2
        return tuple(s)

    def array(self, rng):
        a = rng.standard_normal(self.base_shape())
        return (np.abs(a) + 0.1 if self.pos else a) * self.scale + self.shift

    def apply(self, t):
        if self.view == "T":
            return t.transpose(-1, -2)
        return t[..., ::2] if self.view == "slice" else t


class Sign(R):
    """A fixed (no-grad) float input of +-1 values."""

    def __init__(self, *shape):
        super().__init__(*shape, grad=False)

    def array(self, rng):
        return np.where(rng.standard_normal(self.shape) > 0, 1.0, -1.0)


class Bits(R):
    """A fixed (no-grad) float input of 0/1 values."""

    def __init__(self, *shape):
        super().__init__(*shape, grad=False)

    def array(self, rng):
        return (rng.standard_normal(self.shape) > 0).astype(np.float64)


def Ints(high, *shape):
    """Random int64 indices in [0, high)."""
    return lambda rng: rng.integers(0, high, shape)


def _causal(n, float_mask=False):
    m = np.triu(np.ones((n, n), dtype=bool), 1)
    return np.where(m, -np.inf, 0.0) if float_mask else m


def _padding_mask(n, s):
    m = np.zeros((n, s), dtype=bool)
    m[0, -2:] = True
    m[-1, -1] = True
    return m


class Case:
    """One module configuration: ``make()`` builds it (CPU, seeded), ``args``/``kw`` the
    inputs (specs, callables of a NumPy generator, arrays or plain values), ``call`` how to
    apply it (default ``m(*args, **kw)``), ``train`` its mode, ``dtypes`` those it runs in,
    ``tol`` a tolerance multiplier, ``warm`` a CPU pass before copying (running stats)."""

    def __init__(
        self, id, make, *args, kw=None, call=None, train=True, dtypes=F32, tol=1.0, warm=None
    ):
        self.id, self.make, self.args, self.kw, self.call = id, make, args, kw or {}, call
        self.train, self.dtypes, self.tol, self.warm = train, dtypes, tol, warm

    @property
    def cls(self):
        return self.id.split("-")[0]


# -- the cases ---------------------------------------------------------------------------


def _lazy(cls, *a, shape, **k):
    """A lazy module materialised on the CPU by one forward of zeros of ``shape``."""

    def make():
        m = cls(*a, **k)
        with lucid.no_grad():
            m(lucid.zeros(*shape))
        return m

    return make


def _warm(*shape):
    """Two training forwards on the CPU, so running statistics are not the initial ones."""

    def warm(m):
        with lucid.no_grad():
            m.train()
            for s in (0, 1):
                m(
                    lucid.tensor(
                        np.random.default_rng(s).standard_normal(shape) * 2 + 1,
                        dtype=_float_dtype(m),
                    )
                )

    return warm


def _float_dtype(m):
    """The dtype of ``m``'s first floating-point parameter or buffer (float32 if none)."""
    ts = [t for t in list(m.parameters()) + list(m.buffers()) if t.is_floating_point()]
    return ts[0].dtype if ts else lucid.float32


class _Wrap(nn.Module):
    """A module holding ``inner`` (a container) and applying ``fn(self.inner, x)``."""

    def __init__(self, inner, fn):
        super().__init__()
        self.inner, self.fn = inner, fn

    def forward(self, x):
        return self.fn(self.inner, x)


def _mlp():
    return [nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)]


def _seq_apply(mods, x):
    for m in mods:
        x = m(x)
    return x


LINEAR = [
    Case("Linear", lambda: nn.Linear(7, 5), R(3, 7), dtypes=ALL),
    Case(
        "Linear-nobias-3d-T", lambda: nn.Linear(7, 5, bias=False), R(2, 4, 7, view="T"), dtypes=BF16
    ),
    Case("Linear-empty-batch", lambda: nn.Linear(7, 5), R(0, 7)),
    Case("Linear-wide", lambda: nn.Linear(1031, 3), R(1, 1031), dtypes=BF16, tol=3),
    Case("Bilinear", lambda: nn.Bilinear(5, 4, 3), R(6, 5), R(6, 4), dtypes=ALL),
    Case("LazyLinear", _lazy(nn.LazyLinear, 4, shape=(2, 6)), R(3, 6), dtypes=BF16),
    Case(
        "NonDynamicallyQuantizableLinear", lambda: nn.NonDynamicallyQuantizableLinear(7, 5), R(3, 7)
    ),
    Case("FusedLinear", lambda: nn.FusedLinear(7, 5), R(3, 7), dtypes=BF16),
    Case(
        "FusedLinear-gelu-tanh",
        lambda: nn.FusedLinear(7, 5, activation="gelu", approximate="tanh"),
        R(3, 7),
    ),
    Case("NoisyLinear-eval", lambda: nn.NoisyLinear(7, 5), R(3, 7), train=False),
    Case("Identity", lambda: nn.Identity(3, x=1), R(3, 4, view="slice")),
    Case("Flatten", lambda: nn.Flatten(), R(2, 3, 4, 5)),
    Case("Flatten-0-2", lambda: nn.Flatten(0, 2), R(2, 3, 4, 5, view="T")),
    Case("Unflatten", lambda: nn.Unflatten(1, (3, 4)), R(2, 12, 5)),
    Case("Sequential", lambda: nn.Sequential(*_mlp()), R(4, 6), dtypes=F64),
    Case("ModuleList", lambda: _Wrap(nn.ModuleList(_mlp()), _seq_apply), R(4, 6)),
    Case(
        "ModuleDict",
        lambda: _Wrap(
            nn.ModuleDict(dict(zip("abc", _mlp()))), lambda d, x: _seq_apply(d.values(), x)
        ),
        R(4, 6),
    ),
    Case(
        "ParameterList",
        lambda: _Wrap(
            nn.ParameterList([nn.Parameter(lucid.randn(6)), nn.Parameter(lucid.randn(4, 6))]),
            lambda p, x: x * p[0] + p[1],
        ),
        R(4, 6),
    ),
    Case(
        "ParameterDict",
        lambda: _Wrap(
            nn.ParameterDict(
                {"w": nn.Parameter(lucid.randn(6, 3)), "b": nn.Parameter(lucid.randn(3))}
            ),
            lambda p, x: x @ p["w"] + p["b"],
        ),
        R(4, 6),
    ),
]

_ACT = [
    ("ReLU", ()),
    ("ReLU6", ()),
    ("LeakyReLU", (0.2,)),
    ("RReLU", ()),
    ("ELU", (0.7,)),
    ("SELU", ()),
    ("CELU", (1.3,)),
    ("GELU", ()),
    ("GELU-tanh", ("tanh",)),
    ("SiLU", ()),
    ("Mish", ()),
    ("Sigmoid", ()),
    ("Tanh", ()),
    ("Softplus", (2.0, 3.0)),
    ("Softsign", ()),
    ("Hardtanh", (-0.5, 1.5)),
    ("Hardsigmoid", ()),
    ("Hardswish", ()),
    ("Hardshrink", (0.7,)),
    ("Softshrink", (0.3,)),
    ("Tanhshrink", ()),
    ("Threshold", (0.1, 20.0)),
    ("GLU", (1,)),
    ("LogSigmoid", ()),
    ("Softmax", (1,)),
    ("Softmin", (-1,)),
    ("LogSoftmax", (2,)),
]

ACTIVATION = [
    Case(
        name,
        (lambda n=name, a=a: getattr(nn, n.split("-")[0])(*a)),
        R(3, 4, 6, scale=3.0),
        train=name != "RReLU",
        dtypes=BF16,
    )
    for name, a in _ACT
] + [
    Case(
        "ReLU-inplace-T", lambda: nn.Sequential(nn.Softplus(), nn.ReLU6(True)), R(3, 4, 6, view="T")
    ),
    Case("PReLU", lambda: nn.PReLU(), R(3, 4, 6), dtypes=BF16),
    Case("PReLU-channels", lambda: nn.PReLU(4, init=0.1), R(3, 4, 6, scale=2.0), dtypes=BF16),
    Case("Softmax2d", lambda: nn.Softmax2d(), R(2, 3, 4, 5), dtypes=BF16),
    Case(
        "Softmax-long-slice",
        lambda: nn.Softmax(-1),
        R(4, 1000, scale=5.0, view="slice"),
        dtypes=F64,
    ),
]

_RED = ("none", "mean", "sum")


def _loss(id, make, *args, call=None, reductions=_RED, dtypes=F32):
    """The loss case ``id`` once per reduction (``make(reduction)``)."""
    return [
        Case(f"{id}-{r}", (lambda r=r: make(r)), *args, call=call, dtypes=dtypes)
        for r in reductions
    ]


def _logsm(dim=-1):
    return lambda m, x, *rest: m(F.log_softmax(x, dim), *rest)


_W = np.array([0.5, 1.0, 2.0, 0.25])


def _w():
    return lucid.tensor(_W, dtype=lucid.float32)


LOSS = sum(
    [
        _loss("L1Loss", lambda r: nn.L1Loss(reduction=r), R(6, 4), R(6, 4)),
        _loss("MSELoss", lambda r: nn.MSELoss(reduction=r), R(6, 4, view="T"), R(6, 4), dtypes=F64),
        _loss("SmoothL1Loss", lambda r: nn.SmoothL1Loss(reduction=r, beta=0.5), R(6, 4), R(6, 4)),
        _loss("HuberLoss", lambda r: nn.HuberLoss(reduction=r, delta=0.5), R(6, 4), R(6, 4)),
        _loss(
            "CrossEntropyLoss",
            lambda r: nn.CrossEntropyLoss(reduction=r),
            R(6, 4),
            Ints(4, 6),
            dtypes=F64,
        ),
        _loss(
            "CrossEntropyLoss-weight-ignore-smooth",
            lambda r: nn.CrossEntropyLoss(
                weight=_w(), ignore_index=2, label_smoothing=0.1, reduction=r
            ),
            R(6, 4, 3),
            Ints(4, 6, 3),
        ),
        _loss(
            "CrossEntropyLoss-many-classes",
            lambda r: nn.CrossEntropyLoss(reduction=r),
            R(5, 5003, scale=3.0),
            Ints(5003, 5),
            reductions=("mean",),
        ),
        _loss(
            "CrossEntropyLoss-probs",
            lambda r: nn.CrossEntropyLoss(reduction=r, label_smoothing=0.2),
            R(6, 4),
            R(6, 4, pos=True, grad=False),
        ),
        _loss(
            "NLLLoss",
            lambda r: nn.NLLLoss(weight=_w(), reduction=r),
            R(6, 4),
            Ints(4, 6),
            call=_logsm(),
        ),
        _loss(
            "NLLLoss2d",
            lambda r: nn.NLLLoss2d(reduction=r),
            R(2, 4, 3, 5),
            Ints(4, 2, 3, 5),
            call=_logsm(1),
        ),
        _loss(
            "NLLLoss-2d-ignore",
            lambda r: nn.NLLLoss(ignore_index=1, reduction=r),
            R(2, 4, 3, 5),
            Ints(4, 2, 3, 5),
            call=_logsm(1),
        ),
        _loss(
            "BCELoss",
            lambda r: nn.BCELoss(weight=_w(), reduction=r),
            R(6, 4),
            Bits(6, 4),
            call=lambda m, x, y: m(lucid.sigmoid(x), y),
        ),
        _loss(
            "BCEWithLogitsLoss",
            lambda r: nn.BCEWithLogitsLoss(pos_weight=_w(), reduction=r),
            R(6, 4, scale=3.0),
            Bits(6, 4),
        ),
        _loss(
            "KLDivLoss",
            lambda r: nn.KLDivLoss(reduction=r),
            R(6, 4),
            R(6, 4, pos=True),
            call=_logsm(),
            reductions=_RED + ("batchmean",),
        ),
        _loss(
            "KLDivLoss-logtarget",
            lambda r: nn.KLDivLoss(reduction=r, log_target=True),
            R(6, 4),
            R(6, 4),
            call=lambda m, x, y: m(F.log_softmax(x, -1), F.log_softmax(y, -1)),
            reductions=("batchmean",),
        ),
        _loss(
            "PoissonNLLLoss",
            lambda r: nn.PoissonNLLLoss(reduction=r),
            R(6, 4),
            lambda rng: rng.poisson(2.0, (6, 4)).astype(np.float64),
        ),
        _loss(
            "PoissonNLLLoss-rate-full",
            lambda r: nn.PoissonNLLLoss(False, True, reduction=r),
            R(6, 4, pos=True),
            lambda rng: rng.poisson(2.0, (6, 4)).astype(np.float64),
        ),
        _loss(
            "GaussianNLLLoss",
            lambda r: nn.GaussianNLLLoss(full=True, reduction=r),
            R(6, 4),
            R(6, 4),
            R(6, 4, pos=True),
        ),
        _loss(
            "GaussianNLLLoss-var1",
            lambda r: nn.GaussianNLLLoss(reduction=r),
            R(6, 4),
            R(6, 4),
            R(6, 1, pos=True),
        ),
        _loss(
            "CTCLoss",
            lambda r: nn.CTCLoss(blank=1, zero_infinity=True, reduction=r),
            R(6, 2, 4),
            np.array([[2, 3], [0, 0]]),
            call=lambda m, x, t: m(F.log_softmax(x, -1), t, [6, 5], [2, 1]),
        ),
        _loss(
            "MarginRankingLoss",
            lambda r: nn.MarginRankingLoss(0.2, reduction=r),
            R(7),
            R(7),
            Sign(7),
        ),
        _loss(
            "HingeEmbeddingLoss",
            lambda r: nn.HingeEmbeddingLoss(0.5, reduction=r),
            R(6, 4),
            Sign(6, 4),
        ),
        _loss(
            "CosineEmbeddingLoss",
            lambda r: nn.CosineEmbeddingLoss(0.1, reduction=r),
            R(5, 4),
            R(5, 4),
            Sign(5),
        ),
        _loss(
            "TripletMarginLoss",
            lambda r: nn.TripletMarginLoss(p=1, swap=True, reduction=r),
            R(6, 4),
            R(6, 4),
            R(6, 4),
        ),
        _loss(
            "TripletMarginWithDistanceLoss",
            lambda r: nn.TripletMarginWithDistanceLoss(
                distance_function=nn.PairwiseDistance(), margin=0.5, reduction=r
            ),
            R(6, 4),
            R(6, 4),
            R(6, 4),
        ),
        _loss(
            "MultiMarginLoss",
            lambda r: nn.MultiMarginLoss(p=2, margin=0.5, weight=_w(), reduction=r),
            R(6, 4, scale=0.3),
            Ints(4, 6),
        ),
        _loss(
            "MultiLabelMarginLoss",
            lambda r: nn.MultiLabelMarginLoss(reduction=r),
            R(6, 4, scale=0.3),
            np.array([[3, 0, -1, 1]] * 3 + [[1, -1, 0, 0]] * 3),
        ),
        _loss(
            "MultiLabelSoftMarginLoss",
            lambda r: nn.MultiLabelSoftMarginLoss(weight=_w(), reduction=r),
            R(6, 4),
            Bits(6, 4),
        ),
        _loss("SoftMarginLoss", lambda r: nn.SoftMarginLoss(reduction=r), R(6, 4), Sign(6, 4)),
    ],
    [],
)

CONV = [
    Case("Conv1d-s2-p1-d2-g2", lambda: nn.Conv1d(4, 6, 3, 2, 1, 2, 2), R(2, 4, 11), dtypes=BF16),
    Case(
        "Conv1d-same-circular-nobias",
        lambda: nn.Conv1d(3, 5, 4, padding="same", padding_mode="circular", bias=False),
        R(2, 3, 9, view="T"),
    ),
    Case("Conv2d", lambda: nn.Conv2d(3, 8, 3), R(2, 3, 9, 8), dtypes=ALL, tol=3),
    Case("Conv2d-batch1-odd", lambda: nn.Conv2d(1, 7, 5, padding=2), R(1, 1, 31, 17), tol=3),
    Case(
        "Conv2d-s21-p12-d12-g2",
        lambda: nn.Conv2d(4, 6, 3, (2, 1), (1, 2), (1, 2), 2),
        R(2, 4, 9, 8),
        dtypes=BF16,
    ),
    Case(
        "Conv2d-depthwise-T",
        lambda: nn.Conv2d(4, 8, 3, groups=4, padding=1),
        R(2, 4, 7, 6, view="T"),
    ),
    Case(
        "Conv2d-same-reflect",
        lambda: nn.Conv2d(3, 4, (3, 2), padding="same", padding_mode="reflect"),
        R(2, 3, 6, 7),
    ),
    Case(
        "Conv2d-replicate-1x1",
        lambda: nn.Conv2d(3, 4, 1, padding=1, padding_mode="replicate"),
        R(2, 3, 5, 4),
    ),
    Case(
        "Conv3d-s2-p1-d112",
        lambda: nn.Conv3d(2, 4, (2, 3, 3), 2, 1, (1, 1, 2)),
        R(2, 2, 5, 6, 7),
        dtypes=BF16,
    ),
    Case("Conv3d-g2", lambda: nn.Conv3d(4, 4, 2, groups=2), R(1, 4, 4, 3, 5, view="slice")),
    Case(
        "ConvTranspose1d-s2-p1-op1-d2-g2",
        lambda: nn.ConvTranspose1d(4, 6, 3, 2, 1, 1, groups=2, dilation=2),
        R(2, 4, 7),
        dtypes=BF16,
    ),
    Case("ConvTranspose2d", lambda: nn.ConvTranspose2d(4, 3, 3), R(2, 4, 5, 4), dtypes=ALL),
    Case(
        "ConvTranspose2d-s23-p10-op12",
        lambda: nn.ConvTranspose2d(4, 2, (3, 2), (2, 3), (1, 0), (1, 2)),
        R(2, 4, 5, 4, view="T"),
    ),
    Case(
        "ConvTranspose3d-s2-p1-g2",
        lambda: nn.ConvTranspose3d(2, 4, 3, 2, 1, groups=2),
        R(1, 2, 3, 4, 5),
        dtypes=BF16,
    ),
    Case("LazyConv1d", _lazy(nn.LazyConv1d, 4, 3, shape=(1, 3, 8)), R(2, 3, 8)),
    Case("LazyConv2d", _lazy(nn.LazyConv2d, 4, 3, stride=2, shape=(1, 3, 6, 6)), R(2, 3, 7, 6)),
    Case("LazyConv3d", _lazy(nn.LazyConv3d, 2, 2, shape=(1, 2, 3, 3, 3)), R(1, 2, 4, 3, 3)),
    Case(
        "LazyConvTranspose1d", _lazy(nn.LazyConvTranspose1d, 4, 3, 2, shape=(1, 3, 5)), R(2, 3, 5)
    ),
    Case(
        "LazyConvTranspose2d",
        _lazy(nn.LazyConvTranspose2d, 2, 2, shape=(1, 3, 4, 4)),
        R(2, 3, 4, 5),
    ),
    Case(
        "LazyConvTranspose3d",
        _lazy(nn.LazyConvTranspose3d, 2, 2, shape=(1, 2, 2, 2, 2)),
        R(1, 2, 3, 2, 3),
    ),
]


def _unpool(n, **k):
    pool = getattr(F, f"max_pool{n}d")
    return lambda m, x: m(*pool(x, 2, return_indices=True), **k)


POOL = [
    Case(
        "MaxPool1d-k3-s2-p1-d2-ceil-idx",
        lambda: nn.MaxPool1d(3, 2, 1, 2, return_indices=True, ceil_mode=True),
        R(2, 3, 12),
    ),
    Case("MaxPool2d-k3-s2-p1", lambda: nn.MaxPool2d(3, 2, 1), R(2, 3, 9, 8), dtypes=F64),
    Case(
        "MaxPool2d-ceil-idx-T",
        lambda: nn.MaxPool2d(2, return_indices=True, ceil_mode=True),
        R(2, 3, 7, 6, view="T"),
    ),
    Case("MaxPool2d-d2", lambda: nn.MaxPool2d((2, 3), (1, 2), dilation=2), R(2, 3, 8, 9)),
    Case("MaxPool3d-p1-idx", lambda: nn.MaxPool3d(2, 2, 1, return_indices=True), R(1, 2, 5, 6, 5)),
    Case("AvgPool1d-p1-ceil-excl", lambda: nn.AvgPool1d(3, 2, 1, True, False), R(2, 3, 12)),
    Case("AvgPool2d", lambda: nn.AvgPool2d(2), R(2, 3, 8, 6), dtypes=F64),
    Case(
        "AvgPool2d-s1-p1-div3",
        lambda: nn.AvgPool2d(3, 1, 1, divisor_override=3),
        R(2, 3, 5, 6, view="slice"),
    ),
    Case("AvgPool3d-ceil", lambda: nn.AvgPool3d((2, 2, 3), 2, ceil_mode=True), R(1, 2, 5, 4, 7)),
    Case("AdaptiveAvgPool1d", lambda: nn.AdaptiveAvgPool1d(5), R(2, 3, 12)),
    Case("AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d((3, 5)), R(2, 3, 7, 9)),
    Case("AdaptiveAvgPool3d", lambda: nn.AdaptiveAvgPool3d((2, 3, 2)), R(1, 2, 5, 7, 3)),
    Case("AdaptiveMaxPool1d-idx", lambda: nn.AdaptiveMaxPool1d(5, True), R(2, 3, 12)),
    Case("AdaptiveMaxPool2d", lambda: nn.AdaptiveMaxPool2d((3, 4)), R(2, 3, 7, 9)),
    Case("AdaptiveMaxPool3d-idx", lambda: nn.AdaptiveMaxPool3d(2, True), R(1, 2, 5, 4, 3)),
    Case("LPPool1d", lambda: nn.LPPool1d(2, 3, 2), R(2, 3, 11)),
    Case("LPPool2d-p3", lambda: nn.LPPool2d(3, 2), R(2, 3, 6, 4, pos=True)),
    Case("LPPool3d-p1.5", lambda: nn.LPPool3d(1.5, 2), R(1, 2, 4, 4, 2, pos=True)),
    Case("MaxUnpool1d", lambda: nn.MaxUnpool1d(2), R(2, 3, 9), call=_unpool(1, output_size=(9,))),
    Case("MaxUnpool2d", lambda: nn.MaxUnpool2d(2), R(2, 3, 6, 4), call=_unpool(2)),
    Case(
        "MaxUnpool3d",
        lambda: nn.MaxUnpool3d(2),
        R(1, 2, 4, 5, 4),
        call=_unpool(3, output_size=(4, 5, 4)),
    ),
]

_PADS = {1: (2, 1), 2: (1, 2, 2, 0), 3: (1, 0, 2, 1, 0, 1)}
_PAD_SHAPES = {1: (2, 3, 6), 2: (2, 3, 5, 6), 3: (1, 2, 4, 5, 3)}


def _pad_case(kind, n):
    args = (0.5,) if kind == "Constant" else ()
    name = f"{kind}Pad{n}d"
    view = "T" if n == 2 and kind in ("Reflection", "Circular") else None
    return Case(name, lambda: getattr(nn, name)(_PADS[n], *args), R(*_PAD_SHAPES[n], view=view))


PAD = [
    _pad_case(k, n)
    for k in ("Zero", "Constant", "Reflection", "Replication", "Circular")
    for n in (1, 2, 3)
] + [Case("ReflectionPad2d-int", lambda: nn.ReflectionPad2d(2), R(2, 3, 5, 6))]

VISION = [
    Case("Upsample-nearest-x2", lambda: nn.Upsample(scale_factor=2), R(2, 3, 4, 5)),
    Case("Upsample-nearest-size-1d", lambda: nn.Upsample(size=11), R(2, 3, 5)),
    Case(
        "Upsample-nearest-exact",
        lambda: nn.Upsample(size=(7, 9), mode="nearest-exact"),
        R(2, 3, 4, 5),
    ),
    Case("Upsample-area", lambda: nn.Upsample(size=(3, 2), mode="area"), R(2, 3, 7, 5)),
    Case("Upsample-linear", lambda: nn.Upsample(scale_factor=2.5, mode="linear"), R(2, 3, 5)),
    Case(
        "Upsample-linear-corners",
        lambda: nn.Upsample(size=9, mode="linear", align_corners=True),
        R(2, 3, 4),
    ),
    Case(
        "Upsample-bilinear",
        lambda: nn.Upsample(size=(7, 9), mode="bilinear"),
        R(2, 3, 4, 5, view="T"),
        dtypes=F64,
    ),
    Case(
        "Upsample-bicubic-corners",
        lambda: nn.Upsample(scale_factor=(1.5, 2), mode="bicubic", align_corners=True),
        R(2, 3, 4, 5),
    ),
    Case("Upsample-bicubic", lambda: nn.Upsample(size=(6, 3), mode="bicubic"), R(2, 3, 4, 5)),
    Case(
        "Upsample-trilinear",
        lambda: nn.Upsample(scale_factor=2, mode="trilinear"),
        R(1, 2, 3, 4, 2),
    ),
    Case("UpsamplingNearest2d", lambda: nn.UpsamplingNearest2d(scale_factor=3), R(2, 3, 2, 3)),
    Case("UpsamplingBilinear2d", lambda: nn.UpsamplingBilinear2d(size=(7, 9)), R(2, 3, 4, 5)),
    Case("PixelShuffle", lambda: nn.PixelShuffle(2), R(2, 8, 3, 4)),
    Case("PixelUnshuffle", lambda: nn.PixelUnshuffle(2), R(2, 2, 6, 4, view="T")),
    Case("ChannelShuffle", lambda: nn.ChannelShuffle(3), R(2, 6, 3, 3)),
    Case("Unfold", lambda: nn.Unfold((2, 3), (1, 2), 1, (2, 1)), R(2, 3, 7, 8)),
    Case("Unfold-T", lambda: nn.Unfold(2), R(2, 3, 5, 4, view="T")),
    Case("Fold-p1", lambda: nn.Fold((5, 4), 2, padding=1), R(2, 12, 30)),
    Case("Fold-s2", lambda: nn.Fold((6, 6), 2, stride=2), R(2, 12, 9, view="slice")),
    Case("CosineSimilarity", lambda: nn.CosineSimilarity(), R(4, 6), R(4, 6)),
    Case(
        "CosineSimilarity-broadcast", lambda: nn.CosineSimilarity(-1, 1e-6), R(3, 1, 5), R(1, 4, 5)
    ),
    Case("PairwiseDistance", lambda: nn.PairwiseDistance(), R(4, 6), R(4, 6), dtypes=F64),
    Case(
        "PairwiseDistance-p1-keepdim",
        lambda: nn.PairwiseDistance(1.0, keepdim=True),
        R(4, 6, view="T"),
        R(4, 6),
    ),
]


def _norm(id, make, shape, dtypes=BF16, view=None):
    """The norm case ``id`` in training and in eval mode (after a warm-up on the CPU)."""
    return [
        Case(
            f"{id}-train",
            make,
            R(*shape, scale=2.0, shift=1.0, view=view),
            dtypes=dtypes,
            warm=_warm(*shape),
        ),
        Case(
            f"{id}-eval",
            make,
            R(*shape, scale=2.0, shift=1.0),
            dtypes=dtypes,
            train=False,
            warm=_warm(*shape),
        ),
    ]


NORM = sum(
    [
        _norm("BatchNorm1d", lambda: nn.BatchNorm1d(5), (8, 5)),
        _norm("LazyBatchNorm1d", _lazy(nn.LazyBatchNorm1d, shape=(2, 5)), (8, 5)),
        _norm("LazyBatchNorm2d", _lazy(nn.LazyBatchNorm2d, shape=(2, 3, 4, 4)), (4, 3, 5, 5)),
        _norm("LazyBatchNorm3d", _lazy(nn.LazyBatchNorm3d, shape=(2, 2, 3, 3, 3)), (2, 2, 3, 4, 3)),
        _norm("LazyInstanceNorm1d", _lazy(nn.LazyInstanceNorm1d, shape=(2, 4, 5)), (3, 4, 7)),
        _norm("LazyInstanceNorm2d", _lazy(nn.LazyInstanceNorm2d, shape=(2, 3, 4, 4)), (2, 3, 5, 6)),
        _norm(
            "LazyInstanceNorm3d",
            _lazy(nn.LazyInstanceNorm3d, shape=(1, 2, 3, 3, 3)),
            (2, 2, 3, 4, 3),
        ),
        _norm(
            "BatchNorm1d-3d-noaffine",
            lambda: nn.BatchNorm1d(4, affine=False, momentum=0.3),
            (3, 4, 6),
        ),
        _norm("BatchNorm2d", lambda: nn.BatchNorm2d(3), (4, 3, 5, 6), dtypes=ALL, view="T"),
        _norm(
            "BatchNorm2d-nostats",
            lambda: nn.BatchNorm2d(3, track_running_stats=False),
            (4, 3, 5, 6),
        ),
        _norm("BatchNorm2d-cma", lambda: nn.BatchNorm2d(3, momentum=None), (4, 3, 5, 6)),
        _norm("BatchNorm3d", lambda: nn.BatchNorm3d(2, eps=1e-3), (2, 2, 3, 4, 3)),
        # without a process group (or with one rank) SyncBatchNorm is batch norm
        _norm("SyncBatchNorm", lambda: nn.SyncBatchNorm(3), (4, 3, 5, 6)),
        _norm("InstanceNorm1d", lambda: nn.InstanceNorm1d(4), (3, 4, 7)),
        _norm(
            "InstanceNorm2d-affine-stats",
            lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
            (2, 3, 5, 6),
        ),
        _norm("InstanceNorm3d-affine", lambda: nn.InstanceNorm3d(2, affine=True), (2, 2, 3, 4, 3)),
        _norm("LayerNorm", lambda: nn.LayerNorm(6), (3, 4, 6), dtypes=ALL, view="slice"),
        _norm("LayerNorm-2d-nobias", lambda: nn.LayerNorm([4, 6], bias=False), (3, 4, 6)),
        _norm("LayerNorm-noaffine", lambda: nn.LayerNorm(6, elementwise_affine=False), (3, 4, 6)),
        _norm("GroupNorm", lambda: nn.GroupNorm(2, 6), (3, 6, 5), view="T"),
        _norm(
            "GroupNorm-2d-noaffine",
            lambda: nn.GroupNorm(3, 6, affine=False),
            (2, 6, 4, 3),
            dtypes=F64,
        ),
        _norm("RMSNorm", lambda: nn.RMSNorm(6), (3, 4, 6)),
        _norm("RMSNorm-2d-eps", lambda: nn.RMSNorm([4, 6], eps=1e-3), (3, 4, 6), dtypes=F64),
        _norm("LayerNorm-wide", lambda: nn.LayerNorm(4099), (3, 4099), dtypes=F64),
        _norm("BatchNorm1d-tall", lambda: nn.BatchNorm1d(3), (2053, 3)),
        _norm("LocalResponseNorm", lambda: nn.LocalResponseNorm(3, 1e-2), (2, 5, 4, 4)),
    ],
    [],
)


SPARSE = [
    Case("Embedding", lambda: nn.Embedding(10, 4), Ints(10, 3, 5), dtypes=F64),
    Case(
        "Embedding-pad-freq",
        lambda: nn.Embedding(10, 4, padding_idx=0, scale_grad_by_freq=True),
        np.array([[1, 0, 7, 7], [3, 0, 1, 7]]),
    ),
    Case(
        "Embedding-maxnorm",
        lambda: nn.Embedding(10, 4, max_norm=1.0),
        np.array([[1, 2, 7, 7], [3, 9, 1, 7]]),
    ),
    Case(
        "EmbeddingBag-mean",
        lambda: nn.EmbeddingBag(10, 4),
        np.array([1, 2, 4, 5, 4, 3, 2, 9]),
        np.array([0, 3, 3, 6]),
    ),
    Case(
        "EmbeddingBag-sum-weights",
        lambda: nn.EmbeddingBag(10, 4, mode="sum"),
        np.array([1, 2, 4, 5, 4, 3, 2, 9]),
        np.array([0, 2, 5]),
        kw={"per_sample_weights": R(8)},
    ),
    Case(
        "EmbeddingBag-max-pad",
        lambda: nn.EmbeddingBag(10, 4, mode="max", padding_idx=2),
        np.array([1, 2, 4, 5, 4, 3, 2, 9]),
        np.array([0, 3, 5]),
    ),
    Case("EmbeddingBag-2d-lastoffset", lambda: nn.EmbeddingBag(10, 4, mode="sum"), Ints(10, 3, 4)),
    Case(
        "EmbeddingBag-include-last",
        lambda: nn.EmbeddingBag(10, 4, include_last_offset=True),
        np.array([1, 2, 4, 5, 4, 3, 2, 9]),
        np.array([0, 2, 5, 8]),
    ),
]

RNN = [
    Case("RNN", lambda: nn.RNN(5, 6), R(7, 3, 5), dtypes=F64, tol=3),
    Case(
        "RNN-relu-2layer-bi-bf-h0",
        lambda: nn.RNN(5, 6, 2, "relu", batch_first=True, bidirectional=True),
        R(3, 7, 5),
        R(4, 3, 6),
        tol=3,
    ),
    Case(
        "LSTM-2layer-bi-bf-h0c0",
        lambda: nn.LSTM(5, 6, 2, batch_first=True, bidirectional=True),
        R(3, 7, 5),
        R(4, 3, 6),
        R(4, 3, 6),
        call=lambda m, x, h, c: m(x, (h, c)),
        tol=3,
    ),
    Case("LSTM", lambda: nn.LSTM(5, 6), R(7, 3, 5, view="T"), dtypes=F64, tol=3),
    Case("LSTM-proj-unbatched", lambda: nn.LSTM(5, 6, proj_size=3, bias=False), R(7, 5), tol=3),
    Case("GRU", lambda: nn.GRU(5, 6, 2), R(7, 3, 5), R(2, 3, 6), dtypes=F64, tol=3),
    Case(
        "GRU-bi-bf",
        lambda: nn.GRU(5, 6, batch_first=True, bidirectional=True),
        R(3, 7, 5, view="slice"),
        tol=3,
    ),
    Case("RNNBase-GRU", lambda: nn.RNNBase("GRU", 5, 6), R(4, 2, 5)),
    Case("RNNCell-relu-h", lambda: nn.RNNCell(5, 6, nonlinearity="relu"), R(3, 5), R(3, 6)),
    Case("RNNCell", lambda: nn.RNNCell(5, 6), R(5)),
    Case(
        "LSTMCell-hc",
        lambda: nn.LSTMCell(5, 6),
        R(3, 5),
        R(3, 6),
        R(3, 6),
        call=lambda m, x, h, c: m(x, (h, c)),
    ),
    Case("GRUCell", lambda: nn.GRUCell(5, 6, bias=False), R(3, 5, view="T"), dtypes=F64),
    Case("GRUCell-unbatched", lambda: nn.GRUCell(5, 6), R(5), R(6)),
]


def _self_attn(m, x, **k):
    return m(x, x, x, **k)


ATTENTION = [
    Case(
        "GroupedQueryAttention",
        lambda: nn.GroupedQueryAttention(8, 4, 2),
        R(5, 3, 8),
        call=_self_attn,
        tol=3,
    ),
    Case(
        "MultiQueryAttention-bf-causal",
        lambda: nn.MultiQueryAttention(8, 2, batch_first=True),
        R(3, 5, 8),
        call=_self_attn,
        kw={"attn_mask": _causal(5), "need_weights": False},
        tol=3,
    ),
    Case("RotaryEmbedding", lambda: nn.RotaryEmbedding(8, max_seq_len=16), R(2, 3, 5, 8)),
    Case("SinusoidalEmbedding", lambda: nn.SinusoidalEmbedding(8), R(7, scale=5.0)),
    Case("SinusoidalEmbeddingND", lambda: nn.SinusoidalEmbeddingND(8, 2), R(7, 2, scale=5.0)),
    Case("VectorQuantizer", lambda: nn.VectorQuantizer(6, 4), R(3, 5, 4)),
    Case(
        "AdaptiveLogSoftmaxWithLoss",
        lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7]),
        R(6, 8),
        Ints(10, 6),
        call=lambda m, x, t: tuple(m(x, t)),
    ),
    Case(
        "MultiheadAttention-self",
        lambda: nn.MultiheadAttention(8, 2),
        R(5, 3, 8),
        call=_self_attn,
        dtypes=F64,
        tol=3,
    ),
    Case(
        "MultiheadAttention-bf-kvdim-masks",
        lambda: nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4),
        R(3, 5, 8),
        R(3, 6, 6),
        R(3, 6, 4),
        kw={"key_padding_mask": _padding_mask(3, 6), "average_attn_weights": False},
        tol=3,
    ),
    Case(
        "MultiheadAttention-biaskv-zeroattn-causal",
        lambda: nn.MultiheadAttention(8, 4, add_bias_kv=True, add_zero_attn=True),
        R(5, 2, 8, view="slice"),
        call=_self_attn,
        kw={"attn_mask": _causal(5, float_mask=True), "need_weights": False},
        tol=3,
    ),
    Case(
        "MultiheadAttention-nobias-boolmask",
        lambda: nn.MultiheadAttention(8, 2, bias=False),
        R(5, 3, 8),
        R(6, 3, 8),
        R(6, 3, 8),
        kw={"attn_mask": np.triu(np.ones((5, 6), dtype=bool), 2)},
        tol=3,
    ),
    Case(
        "TransformerEncoderLayer-causal",
        lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
        R(5, 3, 8),
        kw={"src_mask": _causal(5)},
        dtypes=F64,
        tol=3,
    ),
    Case(
        "TransformerEncoderLayer-gelu-bf-normfirst-pad",
        lambda: nn.TransformerEncoderLayer(
            8, 2, 16, 0.0, "gelu", batch_first=True, norm_first=True
        ),
        R(3, 5, 8),
        kw={"src_key_padding_mask": _padding_mask(3, 5)},
        tol=3,
    ),
    Case(
        "TransformerDecoderLayer-causal",
        lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
        R(5, 3, 8),
        R(6, 3, 8),
        kw={"tgt_mask": _causal(5, float_mask=True)},
        tol=3,
    ),
    Case(
        "TransformerDecoderLayer-bf-normfirst-mempad",
        lambda: nn.TransformerDecoderLayer(8, 2, 16, 0.0, batch_first=True, norm_first=True),
        R(3, 5, 8),
        R(3, 6, 8),
        kw={"memory_key_padding_mask": _padding_mask(3, 6)},
        tol=3,
    ),
    Case(
        "TransformerEncoder-2layer-norm",
        lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, 0.0),
            2,
            norm=nn.LayerNorm(8),
            enable_nested_tensor=False,
        ),
        R(5, 3, 8),
        kw={"mask": _causal(5)},
        tol=3,
    ),
    Case(
        "TransformerDecoder-2layer-norm",
        lambda: nn.TransformerDecoder(
            nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2, norm=nn.LayerNorm(8)
        ),
        R(5, 3, 8),
        R(6, 3, 8),
        kw={"tgt_mask": _causal(5)},
        tol=3,
    ),
    Case(
        "Transformer",
        lambda: nn.Transformer(8, 2, 2, 1, 16, dropout=0.0),
        R(6, 3, 8),
        R(5, 3, 8),
        kw={"tgt_mask": _causal(5)},
        dtypes=F64,
        tol=5,
    ),
]

CASES = LINEAR + ACTIVATION + LOSS + CONV + POOL + PAD + VISION + NORM + SPARSE + RNN + ATTENTION
PARAMS = [pytest.param(c, dt, id=f"{c.id}-{dt}") for c in CASES for dt in c.dtypes]

# module classes with no forward of their own (each concrete subclass is covered above)
_ABSTRACT = {"Module", "RNNCellBase"}
# random layers: compared by statistics in the tests below
_RANDOM = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"}
# random pooling regions (drawn by each device's generator): test_cuda_fractional_pool.py
# compares them with the regions given (_random_samples)
_RANDOM |= {"FractionalMaxPool2d", "FractionalMaxPool3d"}


# -- running a case on both devices ------------------------------------------------------


def _arrays(case):
    """The case's inputs resolved to NumPy arrays / specs / plain values, seeded."""
    rng = np.random.default_rng(0)

    def one(v):
        if isinstance(v, R):
            return v, v.array(rng)
        if callable(v):
            return None, v(rng)
        return None, v

    return [one(v) for v in case.args], {k: one(v) for k, v in case.kw.items()}


def _tensor(spec, a, dtype, dev):
    """``(leaf, value)``: ``a`` as a tensor on ``dev`` (floats of a spec in ``dtype``, as a
    leaf requiring grad when the spec says so) and the value the module gets (its view)."""
    if not isinstance(a, np.ndarray):
        return None, a
    if spec is None:
        t = lucid.tensor(a).to(dev)
        return None, t
    t = lucid.tensor(a, dtype=dtype).to(dev)
    if spec.grad:
        t.requires_grad_()
    return (t if spec.grad else None), spec.apply(t)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _flat(x)]
    return [] if out is None else [out]


def _run(case, m, dtype, dev, arrays):
    """Forward and backward of ``m`` on ``dev``: (outputs, input leaves)."""
    args, kw = arrays
    a = [_tensor(s, v, dtype, dev) for s, v in args]
    k = {n: _tensor(s, v, dtype, dev) for n, (s, v) in kw.items()}
    vals, kvals = [v for _, v in a], {n: v for n, (_, v) in k.items()}
    out = case.call(m, *vals, **kvals) if case.call else m(*vals, **kvals)
    outs = _flat(out)
    rng = np.random.default_rng(1)
    loss = None
    for o in outs:
        if o.requires_grad:
            c = lucid.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype).to(dev)
            term = (o * c).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()
    leaves = [t for t, _ in a] + [t for t, _ in k.values()]
    return outs, leaves


def _host(t):
    """Values of ``t`` as a float64 (or exact integer/bool) NumPy array on the host."""
    t = t.detach().cpu()
    if t.is_floating_point():
        return t.to(lucid.float64).numpy()
    return t.numpy()


def close(got, want, dtype_name, what, tol=1.0):
    """``got`` (device tensor) matches ``want`` (CPU tensor): dtype, shape, values."""
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert tuple(got.shape) == tuple(want.shape), f"{what}: shape {got.shape} != {want.shape}"
    assert got.device.type == lucid.device(DEVICE).type, f"{what}: on {got.device}"
    g, w = _host(got), _host(want)
    if not want.is_floating_point():
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    rtol, atol = TOL[dtype_name]
    finite = w[np.isfinite(w)]
    scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    np.testing.assert_allclose(g, w, rtol=rtol * tol, atol=atol * tol * scale, err_msg=what)


def _pair(case, dtype_name):
    """The case's module on the CPU and its copy on DEVICE."""
    lucid.manual_seed(0)
    m = case.make()
    if dtype_name != "float32":
        m.to(DTYPES[dtype_name])
    if case.warm:
        case.warm(m)
    m.train(case.train)
    return m, copy.deepcopy(m).to(DEVICE)


@pytest.mark.parametrize("case,dtype_name", PARAMS)
def test_layer_matches_cpu(case, dtype_name):
    dtype = DTYPES[dtype_name]
    cpu_m, dev_m = _pair(case, dtype_name)
    for p in dev_m.parameters():
        assert p.device.type == lucid.device(DEVICE).type
    arrays = _arrays(case)
    lucid.manual_seed(1)
    want, want_leaves = _run(case, cpu_m, dtype, "cpu", arrays)
    lucid.manual_seed(1)
    got, got_leaves = _run(case, dev_m, dtype, DEVICE, arrays)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        close(g, w, dtype_name, f"{case.id}: output {i}", case.tol)
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        if w is None:
            continue
        assert (g.grad is None) == (w.grad is None), f"{case.id}: input {i} grad presence"
        if w.grad is not None:
            close(g.grad, w.grad, dtype_name, f"{case.id}: input {i} grad", case.tol)
    dev_params = dict(dev_m.named_parameters())
    for name, w in cpu_m.named_parameters():
        g = dev_params[name]
        close(g, w, dtype_name, f"{case.id}: parameter {name}", case.tol)
        assert (g.grad is None) == (w.grad is None), f"{case.id}: {name} grad presence"
        if w.grad is not None:
            close(g.grad, w.grad, dtype_name, f"{case.id}: {name} grad", case.tol)
    dev_bufs = dict(dev_m.named_buffers())
    for name, w in cpu_m.named_buffers():
        close(dev_bufs[name], w, dtype_name, f"{case.id}: buffer {name}", case.tol)


def test_every_layer_is_covered():
    covered = {c.cls for c in CASES} | _ABSTRACT | _RANDOM
    missing = set(nn.modules.__all__) - covered
    assert not missing, f"layers without a CUDA-vs-CPU case: {sorted(missing)}"


# -- random layers -----------------------------------------------------------------------


def _x(*shape, dtype=lucid.float32):
    a = np.random.default_rng(3).standard_normal(shape)
    return lucid.tensor(a, dtype=dtype).to(DEVICE).requires_grad_()


@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
def test_dropout_statistics(dtype_name):
    dtype = DTYPES[dtype_name]
    x = _x(64, 512, dtype=dtype)
    m = nn.Dropout(0.3).to(DEVICE)
    y = m(x)
    assert y.dtype == dtype and y.device.type == lucid.device(DEVICE).type
    y.sum().backward()
    kept = _host(y) != 0
    assert abs(1 - kept.mean() - 0.3) < 0.02
    xs, ys = _host(x), _host(y)
    np.testing.assert_allclose(ys[kept], xs[kept] / 0.7, rtol=TOL[dtype_name][0])
    np.testing.assert_allclose(_host(x.grad), kept / 0.7, rtol=TOL[dtype_name][0])
    m.eval()
    np.testing.assert_array_equal(_host(m(x)), xs)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_channel_dropout_drops_whole_channels(n):
    shape = (8, 64) + (5, 4, 3)[:n]
    x = _x(*shape)
    y = _host(getattr(nn, f"Dropout{n}d")(0.4).to(DEVICE)(x))
    per_channel = (y != 0).reshape(8, 64, -1)
    assert (per_channel.all(-1) | ~per_channel.any(-1)).all()
    assert abs(1 - per_channel.all(-1).mean() - 0.4) < 0.06
    kept = per_channel.all(-1)
    np.testing.assert_allclose(
        y.reshape(8, 64, -1)[kept], _host(x).reshape(8, 64, -1)[kept] / 0.6, rtol=1e-5
    )


@pytest.mark.parametrize("cls", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropout_keeps_mean_and_variance(cls):
    x = _x(64, 256, 4) if cls == "FeatureAlphaDropout" else _x(128, 512)
    m = getattr(nn, cls)(0.2).to(DEVICE)
    y = m(x)
    y.sum().backward()
    assert y.shape == x.shape and x.grad.shape == x.shape
    ys = _host(y)
    assert abs(ys.mean()) < 0.05 and abs(ys.std() - 1) < 0.05
    assert not np.allclose(ys, _host(x))
    m.eval()
    np.testing.assert_array_equal(_host(m(x)), _host(x))


def test_rrelu_training_slopes_in_range():
    x = _x(64, 256)
    y = nn.RReLU(0.1, 0.3).to(DEVICE)(x)
    xs, ys = _host(x), _host(y)
    neg = xs < 0
    np.testing.assert_array_equal(ys[~neg], xs[~neg])
    slope = ys[neg] / xs[neg]
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6
    assert slope.std() > 0.03  # random per element, not one slope


# -- moving and saving modules -----------------------------------------------------------


def _state(m):
    return {k: _host(v) for k, v in m.state_dict().items()}


def _model():
    lucid.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 5)
    )


def test_module_round_trip_keeps_parameters_identical():
    m = _model()
    ref = _state(m)
    m.to(DEVICE)
    for t in list(m.parameters()) + list(m.buffers()):
        assert t.device.type == lucid.device(DEVICE).type
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    m.cpu()
    assert all(p.device.type == "cpu" for p in m.parameters())
    for k, v in _state(m).items():
        np.testing.assert_array_equal(v, ref[k])
        assert v.dtype == ref[k].dtype


@pytest.mark.skipif(DEVICE == "cpu", reason="Module.cuda() needs a GPU")
def test_module_cuda_cpu_round_trip():
    m = _model().eval()
    ref = _state(m)
    m.cuda()
    assert all(p.is_cuda for p in m.parameters())
    x = lucid.randn(2, 3, 6, 6)
    y = m(x.cuda())
    m.cpu()
    for k, v in _state(m).items():
        np.testing.assert_array_equal(v, ref[k])
    close(y, m(x), "float32", "cuda round trip forward")


def test_state_dict_save_load_of_device_module():
    m = _model().to(DEVICE)
    x = lucid.randn(2, 3, 6, 6)
    with lucid.no_grad():
        m(x.to(DEVICE))  # running stats move off their init
    ref = _state(m)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.safetensors")
        lucid.save(m.state_dict(), path)
        same = lucid.load(path)
        on_cpu = lucid.load(path, map_location="cpu")
    for k, v in same.items():
        assert v.device.type == lucid.device(DEVICE).type
        np.testing.assert_array_equal(_host(v), ref[k])
    for k, v in on_cpu.items():
        assert v.device.type == "cpu"
        np.testing.assert_array_equal(v.numpy(), ref[k])
    fresh = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 5)
    )
    fresh.load_state_dict(on_cpu)
    fresh.eval()
    m.eval()
    close(m(x.to(DEVICE)), fresh(x), "float32", "reloaded module forward")
    back = copy.deepcopy(fresh).to(DEVICE)
    back.load_state_dict(same)
    close(back(x.to(DEVICE)), fresh(x), "float32", "device state loaded onto device")


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda **k: nn.Linear(6, 4, **k), (3, 6)),
        (lambda **k: nn.Conv2d(3, 4, 3, **k), (2, 3, 5, 5)),
        (lambda **k: nn.ConvTranspose1d(3, 2, 3, **k), (2, 3, 5)),
        (lambda **k: nn.BatchNorm2d(3, **k), (2, 3, 4, 4)),
        (lambda **k: nn.LayerNorm(6, **k), (3, 6)),
        (lambda **k: nn.Embedding(10, 4, **k), None),
        (lambda **k: nn.LSTM(6, 5, 2, **k), (4, 2, 6)),
        (lambda **k: nn.MultiheadAttention(6, 2, **k), None),
    ],
    ids=[
        "Linear",
        "Conv2d",
        "ConvTranspose1d",
        "BatchNorm2d",
        "LayerNorm",
        "Embedding",
        "LSTM",
        "MultiheadAttention",
    ],
)
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_layers_built_on_device(make, shape, dtype_name, on_device):
    """``device=``/``dtype=`` at construction (initialisers running on the device) and the
    default device: every parameter and buffer lands there, with finite values."""
    dtype = DTYPES[dtype_name]
    for m in (make(device=DEVICE, dtype=dtype), make(dtype=dtype)):  # explicit, default
        for t in list(m.parameters()) + list(m.buffers()):
            assert t.device.type == on_device.type
            if t.is_floating_point():
                assert t.dtype == dtype and np.isfinite(_host(t)).all()
        if shape is not None:
            x = lucid.randn(*shape, dtype=dtype)
            y = _flat(m(x))[0]
            assert y.device.type == on_device.type and y.dtype == dtype
