"""Registry-driven suite: every registered op has samples, and each sample passes
gradcheck (float64), eager/graph-mode backward agreement, gradgradcheck where twice
differentiable, and forward/backward parity with PyTorch in float64 and float32.

Complex: every sample of an op declaring ``complex_grad="holomorphic"`` also runs as its
complex variant (float arrays made complex, ``complex_variant``), and the samples of the
complex ops are complex themselves: gradcheck in complex128 (real and imaginary parts
perturbed), eager = graph backward, gradgradcheck, and parity with PyTorch's values and
``.grad`` in complex128 and complex64."""

import numpy as np
import pytest
import torch

import lucid
from lucid.autograd.gradcheck import gradcheck, gradgradcheck

from .samples import SAMPLES as _REAL_SAMPLES
from .samples._sample import Const, complex_variant


def _holomorphic(sample):
    return lucid.ops.core.registry.get_op(sample.op).schema_v1.complex_grad == "holomorphic"


SAMPLES = _REAL_SAMPLES + [
    complex_variant(s) for s in _REAL_SAMPLES if s.complex and _holomorphic(s)
]


def _as(a, dtype):
    """Float array ``a`` in ``dtype``, complex ``a`` in the complex dtype of its precision."""
    if a.dtype.kind == "c":
        return a.astype(np.result_type(dtype, np.complex64))
    return a.astype(dtype) if a.dtype.kind == "f" else a


def _normal_like(rng, shape, dt):
    """Standard normal values of ``shape`` in NumPy dtype ``dt`` (both parts if complex)."""
    g = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        g = g + 1j * rng.standard_normal(shape)
    return np.asarray(g).astype(dt)


def _lucid_args(sample, dtype=np.float64, grad=True, device=None):
    out = []
    for a in sample.args:
        if isinstance(a, Const):
            v = a.value
            out.append(lucid.tensor(v, device=device) if isinstance(v, np.ndarray) else v)
        elif isinstance(a, np.ndarray):
            with np.errstate(over="ignore"):  # float16: large samples become inf
                arr = _as(a, dtype)
            t = lucid.tensor(arr, device=device)
            if grad and sample.grad and arr.dtype.kind in "fc":
                t.requires_grad_()
            out.append(t)
        else:
            out.append(a)
    return out


def _torch_args(sample, dtype=np.float64):
    out = []
    for a in sample.args:
        if isinstance(a, Const):
            v = a.value
            out.append(torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v)
        elif isinstance(a, np.ndarray):
            arr = _as(a, dtype)
            t = torch.from_numpy(np.array(arr))
            if sample.grad and arr.dtype.kind in "fc":
                t.requires_grad_()
            out.append(t)
        else:
            out.append(a)
    return out


def _outs(r):
    return (
        [r]
        if isinstance(r, (lucid.Tensor, torch.Tensor))
        else [o for o in r if isinstance(o, (lucid.Tensor, torch.Tensor))]
    )


def _ids(samples):
    return [s.name for s in samples]


def test_every_op_has_a_sample():
    covered = {s.op for s in SAMPLES}
    missing = [n for n in lucid.ops.core.registry.list_ops() if n not in covered]
    assert not missing, f"registered ops without registry-suite samples: {missing}"


def test_every_op_is_documented_and_complete():
    for name, cls in lucid.ops.core.registry.all_ops().items():
        doc = cls.__doc__ or ""
        assert "Math" in doc and "Attributes" in doc and "Notes" in doc, name
        assert cls.__name__.endswith("Backward"), name
        if cls.schema_v1.differentiable:
            own = _defined(cls)
            assert "grad" in own or {"grad_formula", "grad_formula_impl"} <= own, (
                f"{name}: no gradient formula (grad, or both backward forms)"
            )
            hand = own & {"grad_formula", "grad_formula_impl"}
            if hand:  # a hand-written backward next to (or instead of) the one formula
                notes = doc.split("Notes", 1)[1]
                assert "Two backward forms:" in notes, (
                    f"{name} defines {sorted(hand)} itself instead of only grad(); its Notes "
                    "must say 'Two backward forms:' and why (a measured speed-up or a "
                    "necessity)"
                )


def _defined(cls):
    """The attributes ``cls`` and its op base classes (``...Backward``) define themselves;
    ``Op``'s derived ``grad_formula``/``grad_formula_impl`` are not among them."""
    names = set()
    for k in cls.__mro__:
        if k.__module__.startswith("lucid.ops") and k.__name__.endswith("Backward"):
            names |= set(vars(k))
    return names


DIFF = [
    s for s in SAMPLES if s.grad and lucid.ops.core.registry.get_op(s.op).schema_v1.differentiable
]


@pytest.mark.parametrize("sample", DIFF, ids=_ids(DIFF))
def test_gradcheck(sample):
    args = _lucid_args(sample)
    assert gradcheck(
        lambda *a: sample.fn(*a, **sample.kwargs), args, atol=sample.atol, rtol=sample.rtol
    )


@pytest.mark.parametrize("sample", DIFF, ids=_ids(DIFF))
def test_eager_and_graph_backward_agree(sample):
    args = _lucid_args(sample)
    wrt = [a for a in args if isinstance(a, lucid.Tensor) and a.requires_grad]
    outs = [o for o in _outs(sample.fn(*args, **sample.kwargs)) if o.requires_grad]
    rng = np.random.default_rng(3)
    gos = [lucid.tensor(_normal_like(rng, tuple(o.shape), o.dtype.np)) for o in outs]
    eager = lucid.autograd.grad(outs, wrt, gos, retain_graph=True, allow_unused=True)
    graph = lucid.autograd.grad(outs, wrt, gos, create_graph=True, allow_unused=True)
    for e, g in zip(eager, graph):
        assert (e is None) == (g is None)
        if e is not None:
            np.testing.assert_allclose(
                e.detach().numpy(), g.detach().numpy(), rtol=1e-10, atol=1e-12
            )


def _nodes(outs):
    seen, stack = set(), [o.grad_fn for o in outs if o.grad_fn is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(f for f, _ in n.next_functions if f is not None)
    return seen


@pytest.mark.parametrize("sample", DIFF, ids=_ids(DIFF))
def test_nodes_match_their_schema_arity(sample):
    args = _lucid_args(sample)
    outs = _outs(sample.fn(*args, **sample.kwargs))
    for node in _nodes(outs):
        s = getattr(node, "schema_v1", None)
        if s is None:
            continue
        if s.input_arity >= 0:
            assert len(node.next_edges) == s.input_arity, (s.name, len(node.next_edges))
        if s.output_arity >= 0:
            n_out = 1 if node._out_meta is None else len(node._out_meta)
            assert n_out == s.output_arity, (s.name, n_out)


GG = [s for s in DIFF if s.gradgrad]


@pytest.mark.parametrize("sample", GG, ids=_ids(GG))
def test_gradgradcheck(sample):
    args = _lucid_args(sample)
    assert gradgradcheck(
        lambda *a: sample.fn(*a, **sample.kwargs), args, atol=sample.atol, rtol=sample.rtol
    )


PARITY = [s for s in SAMPLES if s.torch_fn is not None]
TOL = {np.float64: (1e-10, 1e-12), np.float32: (1e-4, 1e-5)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("sample", PARITY, ids=_ids(PARITY))
def test_parity_with_torch(sample, dtype):
    rtol, atol = TOL[dtype]
    la = _lucid_args(sample, dtype)
    ta = _torch_args(sample, dtype)
    lo = _outs(sample.fn(*la, **sample.kwargs))
    to = _outs(sample.torch_fn(*ta, **sample.kwargs))
    assert len(lo) == len(to)
    for l, t in zip(lo, to):
        assert tuple(l.shape) == tuple(t.shape)
        assert l.dtype.is_complex == t.dtype.is_complex, (l.dtype, t.dtype)
        np.testing.assert_allclose(
            _wide(l.detach().numpy()),
            _wide(t.detach().resolve_conj().numpy()),
            rtol=rtol,
            atol=atol,
        )
    lw = [a for a in la if isinstance(a, lucid.Tensor) and a.requires_grad]
    tw = [a for a in ta if isinstance(a, torch.Tensor) and a.requires_grad]
    pairs = [(l, t) for l, t in zip(lo, to) if l.requires_grad and t.requires_grad]
    if not pairs or not lw:
        return
    rng = np.random.default_rng(5)
    gos = [_normal_like(rng, tuple(l.shape), l.dtype.np) for l, _ in pairs]
    lg = lucid.autograd.grad(
        [p[0] for p in pairs], lw, [lucid.tensor(g) for g in gos], allow_unused=True
    )
    tg = torch.autograd.grad(
        [p[1] for p in pairs], tw, [torch.from_numpy(g) for g in gos], allow_unused=True
    )
    for l, t in zip(lg, tg):
        if t is None:
            assert l is None or not np.any(l.numpy())
            continue
        np.testing.assert_allclose(
            _wide(l.numpy()), _wide(t.resolve_conj().numpy()), rtol=rtol, atol=atol
        )


def _wide(a):
    """``a`` in float64, or complex128 when complex, for comparison."""
    return np.asarray(a).astype(np.complex128 if a.dtype.kind == "c" else np.float64)
