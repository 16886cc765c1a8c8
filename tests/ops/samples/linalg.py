"""Registry-suite samples for linear algebra."""

import math

import torch

import lucid

from ._sample import Const, Sample, rnd


def _einsum(eq):
    return (lambda *xs: lucid.einsum(eq, *xs)), (lambda *xs: torch.einsum(eq, *xs))


def _es(eq, *shapes, **kw):
    fl, ft = _einsum(eq)
    args = tuple(rnd(*s, seed=i) for i, s in enumerate(shapes))
    return Sample("einsum", fl, args, torch_fn=ft, name=f"einsum[{eq}]", **kw)


def _cdist(p, s1, s2, **kw):
    return Sample(
        "cdist",
        lucid.cdist,
        (rnd(*s1), rnd(*s2, seed=1)),
        kwargs={"p": p},
        torch_fn=torch.cdist,
        name=f"cdist[p={p},{s1},{s2}]",
        **kw,
    )


def _const_matrix_vector(w, x):
    return w.to(x.dtype) @ x  # only x needs a gradient: g @ W


def _vector_const_matrix(x, w):
    return x @ w.to(x.dtype)  # only x needs a gradient: W @ g


SAMPLES = [
    Sample("matmul", lucid.matmul, (rnd(3, 4), rnd(4, 2, seed=1)), torch_fn=torch.matmul),
    Sample(
        "matmul",
        _const_matrix_vector,
        (Const(rnd(3, 4)), rnd(4, seed=1)),
        torch_fn=_const_matrix_vector,
        name="matmul-const-matrix-vector",
    ),
    Sample(
        "matmul",
        _vector_const_matrix,
        (rnd(4), Const(rnd(4, 3, seed=1))),
        torch_fn=_vector_const_matrix,
        name="matmul-vector-const-matrix",
    ),
    Sample("matmul", lucid.matmul, (rnd(2, 1, 3, 4), rnd(5, 4, 2, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(4), rnd(2, 4, 3, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(2, 3, 4), rnd(4, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(4), rnd(4, seed=1)), torch_fn=torch.matmul),
    _es("ij,jk->ik", (3, 4), (4, 2)),
    _es("ij,jk", (2, 1), (3, 4)),  # size-1 label broadcasts
    _es("bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
    _es("...ij,...jk", (2, 1, 3, 4), (5, 4, 2)),
    _es("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),
    _es("ii->i", (3, 3)),
    _es("iij->j", (3, 3, 2)),
    _es("ii", (3, 3)),
    _es("ij->", (2, 3)),
    _es("i,j->ij", (3,), (2,)),
    _es("ij,j->i", (3, 4), (4,)),
    _es("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),
    Sample(
        "cross",
        lucid.cross,
        (rnd(4, 3), rnd(4, 3, seed=1)),
        kwargs={"dim": 1},
        torch_fn=torch.cross,
    ),
    Sample(
        "cross",
        lucid.cross,
        (rnd(3, 1, 2), rnd(3, 4, 2, seed=1)),
        kwargs={"dim": 0},
        torch_fn=torch.cross,
    ),
    Sample("diag_embed", lucid.diag_embed, (rnd(2, 3),), torch_fn=torch.diag_embed),
    Sample(
        "diag_embed",
        lucid.diag_embed,
        (rnd(2, 3),),
        kwargs={"offset": -1, "dim1": 2, "dim2": 0},
        torch_fn=torch.diag_embed,
    ),
    Sample(
        "diag_embed",
        lucid.diag,
        (rnd(3),),
        kwargs={"diagonal": 1},
        torch_fn=torch.diag,
        name="diag[1-d]",
    ),
    _cdist(2.0, (4, 3), (5, 3)),
    _cdist(2.0, (2, 1, 4, 3), (3, 5, 3)),
    _cdist(1.0, (4, 3), (5, 3), gradgrad=False),
    _cdist(3.0, (4, 3), (2, 5, 3)),
    _cdist(0.5, (3, 2), (4, 2)),
    _cdist(math.inf, (4, 3), (5, 3), gradgrad=False),
    _cdist(0.0, (3, 2), (4, 2), gradgrad=False),
    _cdist(2.0, (27, 3), (4, 3), rtol=1e-6),  # P > 25: the GEMM path
]
