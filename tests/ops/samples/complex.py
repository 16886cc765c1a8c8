"""Registry-suite samples of the complex ops (lucid.ops.elementwise.complex) and of the ops that
handle complex input themselves (``complex_grad="custom"``: abs, casts, comparisons, predicates,
boolean reductions). Holomorphic ops get complex variants of their real samples
automatically (``complex_variant``)."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, crnd, pos, rnd

_Z = crnd(3, 4)
_Z0 = crnd(1, seed=4).reshape(())
_ZT = crnd(4, 3, seed=2).T
_WITH_ZERO = np.array([1 + 2j, 0j, -0.5 + 0.25j, 3 - 1j])


def _unary(name, lfn=None, tfn=None, data=(_Z, _Z0, _ZT), **kw):
    lfn = lfn or getattr(lucid, name)
    tfn = tfn or getattr(torch, name)
    tags = ("", "[0-d]", "[transposed]")
    return [
        Sample(name, lfn, (d,), torch_fn=tfn, name=f"{name}{tag}[complex]", **kw)
        for d, tag in zip(data, tags)
    ]


def _lib(x):
    return lucid if isinstance(x, lucid.Tensor) else torch


SAMPLES = [
    *_unary("real"),
    *_unary("imag"),
    *_unary("conj"),
    *_unary("angle"),
    *_unary("sgn"),
    *_unary("view_as_real"),
    *_unary("abs"),
    Sample(
        "conj", lucid.conj_physical, (_Z,), torch_fn=torch.conj_physical, name="conj[conj_physical]"
    ),
    # a real input: conj_physical copies, its gradient passes through
    Sample(
        "conj",
        lucid.conj_physical,
        (rnd(3),),
        torch_fn=torch.conj_physical,
        name="conj[real input]",
    ),
    Sample("angle", lucid.angle, (rnd(3, 4),), torch_fn=torch.angle, name="angle[real]"),
    # at 0 sgn, abs and angle have PyTorch's gradient 0 (not finite-differentiable there)
    Sample(
        "sgn",
        lambda z: lucid.sgn(z) * 1,
        (Const(_WITH_ZERO),),
        torch_fn=lambda z: torch.sgn(z) * 1,
        grad=False,
        name="sgn[at 0]",
    ),
    Sample(
        "real", lambda z: z.real * 2, (_Z,), torch_fn=lambda z: z.real * 2, name="real[property]"
    ),
    Sample(
        "imag",
        lambda z: z.imag.sum(0),
        (_Z,),
        torch_fn=lambda z: z.imag.sum(0),
        name="imag[property]",
    ),
    Sample(
        "polar", lucid.polar, (pos(3, 4), rnd(3, 4, seed=1, low=-3, high=3)), torch_fn=torch.polar
    ),
    Sample(
        "polar",
        lucid.polar,
        (pos(3, 1), rnd(1, 4, seed=2)),
        torch_fn=torch.polar,
        name="polar[broadcast]",
    ),
    Sample("complex", lucid.complex, (rnd(3, 4), rnd(3, 4, seed=1)), torch_fn=torch.complex),
    Sample(
        "complex",
        lucid.complex,
        (rnd(3, 1), rnd(4, seed=2)),
        torch_fn=torch.complex,
        name="complex[broadcast]",
    ),
    Sample(
        "view_as_complex", lucid.view_as_complex, (rnd(3, 4, 2),), torch_fn=torch.view_as_complex
    ),
    Sample(
        "view_as_complex",
        lambda a: lucid.view_as_complex(a.transpose(0, 1)),
        (rnd(4, 3, 2),),
        torch_fn=lambda a: torch.view_as_complex(a.transpose(0, 1)),
        name="view_as_complex[transposed]",
    ),
    # casts between complex and real dtypes (a real input keeps its gradient's real part)
    Sample(
        "cast",
        lambda x: x.to(lucid.complex128) * (1 + 2j),
        (rnd(3, 4),),
        torch_fn=lambda x: x.to(torch.complex128) * (1 + 2j),
        name="cast[real->complex]",
    ),
    Sample(
        "cast",
        lambda z: z.to(_lib(z).complex64),
        (_Z,),
        torch_fn=lambda z: z.to(torch.complex64),
        atol=0.05,
        rtol=0.05,  # rounding
        name="cast[complex128->complex64]",
    ),
    # non-differentiable ops that accept complex (forward parity only)
    Sample(
        "eq",
        lucid.eq,
        (Const(_WITH_ZERO), Const(np.array([1 + 2j, 0, 1, 3 + 1j]))),
        torch_fn=torch.eq,
        grad=False,
        name="eq[complex]",
    ),
    Sample(
        "ne",
        lucid.ne,
        (Const(_WITH_ZERO), Const(np.array([1 + 2j, 0, 1, 3 + 1j]))),
        torch_fn=torch.ne,
        grad=False,
        name="ne[complex]",
    ),
    *[
        Sample(
            n,
            getattr(lucid, n),
            (Const(np.array([complex(np.nan, 1), complex(1, np.inf), 1 + 1j, -np.inf])),),
            torch_fn=getattr(torch, n),
            grad=False,
            name=f"{n}[complex]",
        )
        for n in ("isnan", "isinf", "isfinite")
    ],
    *[
        Sample(
            n,
            getattr(lucid, n),
            (Const(np.array([[1j, 0], [2, 1 + 1j]])),),
            {"dim": 1},
            torch_fn=getattr(torch, n),
            grad=False,
            name=f"{n}[complex]",
        )
        for n in ("all", "any", "count_nonzero")
    ],
    *[
        Sample(
            "norm",
            lambda z, p=p: lucid.norm(z, p, dim=1),
            (_Z,),
            torch_fn=lambda z, p=p: torch.norm(z, p, dim=1),
            name=f"norm[p={p}][complex]",
        )
        for p in (2, 1, 3, 0.5, float("inf"))
    ],
    *[
        Sample(
            n,
            lambda z, n=n, c=c: getattr(z, n)(1, correction=c),
            (_Z,),
            torch_fn=lambda z, n=n, c=c: getattr(z, n)(1, correction=c),
            name=f"{n}[c={c}][complex]",
        )
        for n in ("var", "std")
        for c in (0, 1)
    ],
    Sample(
        "nonzero",
        lambda z: z.nonzero(),
        (Const(np.array([[1j, 0], [0, 1 + 1j]])),),
        torch_fn=lambda z: z.nonzero(),
        grad=False,
        name="nonzero[complex]",
    ),
]
