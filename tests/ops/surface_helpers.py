"""Parity helpers shared by the ``test_surface_*`` files: run one call in Lucid and in
PyTorch on the same data and compare values, dtypes, shapes and float64 gradients."""

import numpy as np
import torch

import lucid

TOL = {
    np.dtype(np.float64): dict(rtol=1e-10, atol=1e-12),
    np.dtype(np.float32): dict(rtol=1e-5, atol=1e-6),
    np.dtype(np.float16): dict(rtol=1e-3, atol=1e-3),
}


def dtype_name(t):
    return t.dtype.name if isinstance(t, lucid.Tensor) else str(t.dtype).removeprefix("torch.")


def outputs(r):
    """The tensors of a result (a tensor, or a tuple / named tuple / list of them)."""
    if isinstance(r, (lucid.Tensor, torch.Tensor)):
        return [r]
    out = []
    for x in r:
        out.extend(
            outputs(x)
            if isinstance(x, (tuple, list))
            else [x]
            if isinstance(x, (lucid.Tensor, torch.Tensor))
            else []
        )
    return out


def assert_same(lo, to, tol=None, dtype=True):
    """Values (nan where torch has nan), dtypes and shapes of two results agree."""
    ls, ts = outputs(lo), outputs(to)
    assert len(ls) == len(ts)
    for l, t in zip(ls, ts):
        assert tuple(l.shape) == tuple(t.shape), (tuple(l.shape), tuple(t.shape))
        if dtype:
            assert dtype_name(l) == dtype_name(t), (dtype_name(l), dtype_name(t))
        la = l.detach().numpy() if l.dtype is not lucid.bfloat16 else l.detach().float().numpy()
        ta = t.detach().numpy() if t.dtype is not torch.bfloat16 else t.detach().float().numpy()
        if la.dtype.kind in "biu":
            np.testing.assert_array_equal(la, ta)
        else:
            k = tol or TOL.get(la.dtype, TOL[np.dtype(np.float32)])
            np.testing.assert_allclose(la.astype(np.float64), ta.astype(np.float64), **k)


def make(arrays, grad=True, noncontig=False):
    """Lucid and torch leaves from the arrays (float arrays require grad) and the tensors
    to call with (non-contiguous views of the same values when ``noncontig``)."""
    lleaf, tleaf, lin, tin = [], [], [], []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            lin.append(a)
            tin.append(a)
            continue
        g = grad and a.dtype.kind == "f"
        if noncontig and a.ndim >= 1:
            base = np.ascontiguousarray(np.stack([a, np.zeros_like(a)], -1))
            lt, tt = lucid.tensor(base, requires_grad=g), torch.tensor(base, requires_grad=g)
            lv, tv = lt[..., 0], tt[..., 0]
            assert a.size < 2 or not lv.is_contiguous()
        else:
            lt, tt = lucid.tensor(a, requires_grad=g), torch.tensor(a, requires_grad=g)
            lv, tv = lt, tt
        if g:
            lleaf.append(lt)
            tleaf.append(tt)
        lin.append(lv)
        tin.append(tv)
    return lleaf, tleaf, lin, tin


def check(lfn, tfn, *arrays, grad=True, noncontig=False, tol=None, gtol=None, dtype=True, seed=0):
    """``lfn(*lucid)`` vs ``tfn(*torch)``: outputs, then gradients of the floating outputs
    for random upstream gradients."""
    lleaf, tleaf, lin, tin = make(arrays, grad, noncontig)
    lo, to = lfn(*lin), tfn(*tin)
    assert_same(lo, to, tol, dtype)
    if not tleaf:
        return lo, to
    pairs = [(l, t) for l, t in zip(outputs(lo), outputs(to)) if t.requires_grad]
    if not pairs:
        return lo, to
    rng = np.random.default_rng(seed)
    gos = [rng.standard_normal(tuple(t.shape)).astype(t.detach().numpy().dtype) for _, t in pairs]
    lg = lucid.autograd.grad(
        [p[0] for p in pairs], lleaf, [lucid.tensor(g) for g in gos], allow_unused=True
    )
    tg = torch.autograd.grad(
        [p[1] for p in pairs], tleaf, [torch.tensor(g) for g in gos], allow_unused=True
    )
    for l, t in zip(lg, tg):
        if t is None:
            assert l is None or not np.any(l.numpy())
            continue
        assert l is not None
        assert_same(l, t, gtol or tol)
    return lo, to
