"""Errors that PyTorch code catches: each situation runs in torch and in Lucid; Lucid must
raise a :class:`lucid.errors.LucidError` that ``except <the built-in torch raised>`` catches,
whose message names the op the user called."""

import contextlib
import re
import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import LucidError


def _pad(M, x, pad, **kw):
    return (torch.nn.functional.pad if M is torch else lucid.pad)(x, pad, **kw)


# (id, call(M) with M the module, torch or lucid; the op name Lucid's message must start
# with or contain)
TABLE = [
    # broadcasting and shapes
    ("add-broadcast", lambda M: M.ones(2, 3) + M.ones(4), "add"),
    ("mul-broadcast", lambda M: M.mul(M.ones(2, 3), M.ones(2)), "mul"),
    ("atan2-broadcast", lambda M: M.atan2(M.ones(2), M.ones(3)), "atan2"),
    ("pow-broadcast", lambda M: M.ones(3).pow(M.ones(2)), "pow"),
    ("where-broadcast", lambda M: M.where(M.ones(2, dtype=M.bool), M.ones(3), M.ones(2)), "where"),
    (
        "masked_fill-shape",
        lambda M: M.ones(3).masked_fill(M.ones(4, dtype=M.bool), 0.0),
        "masked_fill",
    ),
    ("matmul-shapes", lambda M: M.ones(3, 4) @ M.ones(5, 6), "matmul"),
    ("mm-shapes", lambda M: M.mm(M.ones(3, 4), M.ones(5, 6)), "mm"),
    ("dot-sizes", lambda M: M.dot(M.ones(3), M.ones(4)), "dot"),
    ("mv-dims", lambda M: M.ones(3).mv(M.ones(3)), "mv"),
    ("outer-dims", lambda M: M.outer(M.ones(3, 1), M.ones(2)), "outer"),
    ("einsum-sizes", lambda M: M.einsum("ij,jk->ik", M.ones(2, 3), M.ones(4, 5)), "einsum"),
    ("einsum-repeated", lambda M: M.einsum("aa->a", M.ones(2, 3)), "einsum"),
    ("reshape-numel", lambda M: M.ones(2, 3).reshape(4), "reshape"),
    ("view-numel", lambda M: M.ones(2, 3).view(4), "view"),
    ("view-strides", lambda M: M.ones(2, 3).t().view(6), "view"),
    ("expand-size", lambda M: M.ones(2, 3).expand(4, 3), "expand"),
    ("cat-sizes", lambda M: M.cat([M.ones(2, 3), M.ones(2, 4)]), "cat"),
    ("stack-sizes", lambda M: M.stack([M.ones(2), M.ones(3)]), "stack"),
    ("dstack-sizes", lambda M: M.dstack([M.ones(2, 2), M.ones(3, 3)]), "dstack"),
    ("split-sizes", lambda M: M.ones(3).split([1, 1]), "split"),
    ("unflatten-sizes", lambda M: M.ones(3).unflatten(0, (2, 2)), "unflatten"),
    ("narrow-length", lambda M: M.ones(3).narrow(0, 2, 5), "narrow"),
    ("repeat-dims", lambda M: M.ones(2, 3).repeat(2), "repeat"),
    ("trace-3d", lambda M: M.trace(M.ones(2, 2, 2)), "trace"),
    ("diag-3d", lambda M: M.ones(2, 2, 2).diag(), "diag"),
    ("searchsorted-dims", lambda M: M.searchsorted(M.ones(2, 3), M.ones(3, 1)), "searchsorted"),
    ("fill-tensor", lambda M: M.zeros(2).fill_(M.ones(2)), "fill_"),
    ("pad-odd", lambda M: _pad(M, M.ones(3), (1, 2, 3)), "pad"),
    ("tensor-ragged", lambda M: M.tensor([[1], [2, 3]]), "tensor"),
    # dims
    ("sum-dim", lambda M: M.ones(2, 3).sum(5), "sum"),
    ("sum-0d-dim", lambda M: M.tensor(2.0).sum(7), "sum"),
    ("mean-0d-dim", lambda M: M.tensor(2.0).mean(1), "mean"),
    ("std-0d-dim", lambda M: M.tensor(2.0).std(7), "std"),
    ("var-0d-dim", lambda M: M.tensor(2.0).var(-2), "var"),
    ("amax-0d-dim", lambda M: M.tensor(2.0).amax(7), "amax"),
    ("prod-0d-dim", lambda M: M.tensor(2.0).prod(7), "prod"),
    ("logsumexp-0d-dim", lambda M: M.tensor(2.0).logsumexp(7), "logsumexp"),
    ("any-0d-dim", lambda M: M.tensor(True).any(7), "any"),
    ("all-0d-dim", lambda M: M.tensor(True).all(7), "all"),
    ("count_nonzero-0d-dim", lambda M: M.count_nonzero(M.tensor(2.0), 7), "count_nonzero"),
    ("squeeze-0d-dim", lambda M: M.tensor(2.0).squeeze(7), "squeeze"),
    ("transpose-dim", lambda M: M.ones(2, 3).transpose(0, 5), "transpose"),
    ("permute-dup", lambda M: M.ones(2, 3).permute(0, 0), "permute"),
    ("squeeze-dim", lambda M: M.ones(2, 3).squeeze(4), "squeeze"),
    ("unsqueeze-dim", lambda M: M.ones(3).unsqueeze(3), "unsqueeze"),
    ("flip-dim", lambda M: M.ones(3).flip(2), "flip"),
    ("cumsum-dim", lambda M: M.ones(3).cumsum(2), "cumsum"),
    ("cummax-dim", lambda M: M.ones(3).cummax(1), "cummax"),
    ("max-dim", lambda M: M.ones(3).max(5), "max"),
    ("mode-dim", lambda M: M.ones(3).mode(3), "mode"),
    ("logsumexp-dim", lambda M: M.ones(3).logsumexp(2), "logsumexp"),
    ("movedim-dim", lambda M: M.ones(3).movedim(0, 2), "movedim"),
    ("roll-dim", lambda M: M.ones(3).roll(1, 2), "roll"),
    ("roll-0d-dim", lambda M: M.roll(M.tensor(2.0), 1, 0), "roll"),
    ("unbind-dim", lambda M: M.ones(2, 3).unbind(4), "unbind"),
    ("flatten-dim", lambda M: M.ones(2, 3).flatten(2), "flatten"),
    ("diagonal-same-dims", lambda M: M.ones(3, 3).diagonal(0, 0, 0), "diagonal"),
    ("size-0d", lambda M: M.tensor(2).size(0), "size"),
    ("max-empty", lambda M: M.tensor([]).max(), "max"),
    ("argmax-empty", lambda M: M.tensor([]).argmax(), "argmax"),
    # indices
    ("getitem-range", lambda M: M.ones(3)[5], "__getitem__"),
    ("gather-range", lambda M: M.gather(M.ones(3), 0, M.tensor([5])), "gather"),
    ("scatter-range", lambda M: M.ones(3).scatter(0, M.tensor([7]), 1.0), "scatter"),
    ("index_select-range", lambda M: M.ones(3).index_select(0, M.tensor([5])), "index_select"),
    ("index_add-range", lambda M: M.ones(3).index_add(0, M.tensor([5]), M.ones(1)), "index_add"),
    ("take-range", lambda M: M.ones(3).take(M.tensor([9])), "take"),
    ("topk-k", lambda M: M.ones(3).topk(5), "topk"),
    ("kthvalue-k", lambda M: M.ones(3).kthvalue(0), "kthvalue"),
    # dtypes
    ("requires_grad-int", lambda M: M.tensor([1, 2], requires_grad=True), "requires_grad"),
    ("neg-bool", lambda M: M.tensor([True]).neg(), "neg"),
    ("sub-bool", lambda M: M.tensor([True]) - M.tensor([True]), "sub"),
    ("invert-float", lambda M: ~M.ones(2), "bitwise_not"),
    ("and-float", lambda M: M.ones(2) & M.ones(2), "bitwise_and"),
    ("exp_-int", lambda M: M.ones(3, dtype=M.int64).exp_(), "exp_"),
    ("add_-int-float", lambda M: M.ones(2, dtype=M.int64).add_(M.ones(2)), "add_"),
    ("mean-int", lambda M: M.tensor([1, 2]).mean(), "mean"),
    ("bincount-float", lambda M: M.ones(3).bincount(), "bincount"),
    ("dtype-str", lambda M: M.ones(3, dtype="float32"), "ones"),
    ("dtype-numpy", lambda M: M.ones(3, dtype=np.float32), "ones"),
    ("tensor-dtype-str", lambda M: M.tensor([1.0], dtype="float32"), "tensor"),
    ("tensor-dtype-numpy", lambda M: M.tensor([1.0], dtype=np.float32), "tensor"),
    ("sum-float-dim", lambda M: M.ones(3).sum(1.0), "sum"),
    ("tril-float", lambda M: M.zeros(2, 2).tril(0.5), "tril"),
    # values and arguments
    ("int-div-zero", lambda M: M.tensor([1, 2]) // 0, "floor_divide"),
    ("arange-step0", lambda M: M.arange(0, 5, 0), "arange"),
    ("histc-bins", lambda M: M.histc(M.ones(3), bins=0), "histc"),
    ("bincount-negative", lambda M: M.tensor([-1]).bincount(), "bincount"),
    ("chunk-zero", lambda M: M.ones(2, 3).chunk(0), "chunk"),
    ("clamp-none", lambda M: M.ones(3).clamp(), "clamp"),
    ("norm-bad-p", lambda M: M.ones(3).norm(p="bad"), "norm"),
    ("roll-empty-shifts", lambda M: M.roll(M.ones(3), (), ()), "roll"),
    ("std-unbiased-and-correction", lambda M: M.ones(3).std(correction=1, unbiased=True), "std"),
    (
        "pad-uint8-negative",
        lambda M: _pad(M, M.tensor([1, 2], dtype=M.uint8), (1, 1), value=-1),
        "pad",
    ),
    # overflow
    ("tensor-int64-overflow", lambda M: M.tensor(2**63), "tensor"),
    ("tensor-huge-int", lambda M: M.tensor([2**64 + 5]), "tensor"),
    ("tensor-uint8-overflow", lambda M: M.tensor([300], dtype=M.uint8), "tensor"),
    ("tensor-int8-overflow", lambda M: M.tensor([128], dtype=M.int8), "tensor"),
    ("tensor-int32-float-overflow", lambda M: M.tensor([1e10], dtype=M.int32), "tensor"),
    ("tensor-nan-to-int", lambda M: M.tensor([float("nan")], dtype=M.int64), "tensor"),
    ("full-uint8-overflow", lambda M: M.full((2,), 300, dtype=M.uint8), "full"),
    # found by tests/test_op_fuzz.py: each names the op called, not the one it is built on
    ("swapaxes-dim", lambda M: M.ones(2, 3).swapaxes(0, 5), "swapaxes"),
    ("swapdims-dim", lambda M: M.swapdims(M.ones(2, 3), 4, 0), "swapdims"),
    ("moveaxis-dim", lambda M: M.moveaxis(M.ones(3), 0, 2), "moveaxis"),
    ("adjoint-1d", lambda M: M.ones(3).adjoint(), "adjoint"),
    ("mH-1d", lambda M: M.ones(3).mH, "mH"),
    ("concat-sizes", lambda M: M.concat([M.ones(2, 3), M.ones(2, 4)]), "concat"),
    ("row_stack-sizes", lambda M: M.row_stack([M.ones(2), M.ones(3)]), "row_stack"),
    ("clip-overflow", lambda M: M.ones(2, dtype=M.int8).clip(-300, 3), "clip"),
    ("clamp_min-broadcast", lambda M: M.ones(2, 3).clamp_min(M.ones(4)), "clamp_min"),
    ("true_divide-broadcast", lambda M: M.true_divide(M.ones(2), M.ones(3)), "true_divide"),
    ("norm-1d-nuc", lambda M: M.norm(M.ones(3), "nuc"), "norm"),
    ("norm-3-dims-fro", lambda M: M.ones(2, 2, 2).norm("fro", (0, 1, 2)), "norm"),
    ("linalg.norm-int", lambda M: M.linalg.norm(M.ones(2, 2, dtype=M.int64), 1), "linalg.norm"),
    ("vector_norm-str-ord", lambda M: M.linalg.vector_norm(M.ones(2), "fro"), "linalg.vector_norm"),
    (
        "vector_norm-repeated-dim",
        lambda M: M.linalg.vector_norm(M.ones(2, 2), 2, (0, -2)),
        "linalg.vector_norm",
    ),
    (
        "vector_norm-inf-empty",
        lambda M: M.linalg.vector_norm(M.ones(0), float("inf")),
        "linalg.vector_norm",
    ),
    (
        "matrix_norm-int-dim",
        lambda M: M.linalg.matrix_norm(M.ones(2, 2), 1, 0),
        "linalg.matrix_norm",
    ),
    (
        "matrix_norm-half-2",
        lambda M: M.linalg.matrix_norm(M.ones(2, 2, dtype=M.float16), 2),
        "linalg.matrix_norm",
    ),
    (
        "einsum-contract-dtypes",
        lambda M: M.einsum("ij,jk", M.ones(2, 2), M.ones(2, 2, dtype=M.float64)),
        "einsum",
    ),
    (
        "einsum-contract-bool",
        lambda M: M.einsum("i,i", M.ones(2, dtype=M.bool), M.ones(2, dtype=M.bool)),
        "einsum",
    ),
    (
        "index_fill-int32-index",
        lambda M: M.ones(3).index_fill(0, M.tensor([0], dtype=M.int32), 1.0),
        "index_fill",
    ),
    ("take-int32-index", lambda M: M.ones(3).take(M.tensor([0], dtype=M.int32)), "take"),
    (
        "scatter-dim-before-dtype",
        lambda M: M.ones(3).scatter(2, M.tensor([0], dtype=M.int16), M.ones(1)),
        "scatter",
    ),
    (
        "masked_fill-nan-into-int",
        lambda M: M.ones(2, dtype=M.int32).masked_fill(M.tensor([True, False]), float("nan")),
        "masked_fill",
    ),
    (
        "bincount-minlength",
        lambda M: M.tensor([], dtype=M.int64).bincount(minlength=-1),
        "bincount",
    ),
]


@contextlib.contextmanager
def _quiet():
    """No warnings (torch's deprecation notes) while a situation runs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _torch_error(call):
    with _quiet():
        try:
            call(torch)
        except Exception as e:  # noqa: BLE001 - the type is what the table records
            return e
    return None


def test_table_is_large_enough_and_unique():
    assert len(TABLE) >= 40
    assert len({name for name, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize("name,call,op", TABLE, ids=[t[0] for t in TABLE])
def test_lucid_error_is_caught_as_torchs(name, call, op):
    terr = _torch_error(call)
    assert terr is not None, f"{name}: torch raises nothing here; the table is wrong"
    # the most specific built-in torch raised: what PyTorch code writes in its except clause
    builtin = next(c for c in type(terr).__mro__ if c.__module__ == "builtins")
    with _quiet():
        try:
            call(lucid)
        except builtin as e:
            assert isinstance(e, LucidError), f"{type(e).__name__}: {e}"
            assert re.search(rf"(^|\W){re.escape(op)}(\W|$)", str(e)), (op, str(e))
            return
        except Exception as e:  # noqa: BLE001
            pytest.fail(
                f"{name}: Lucid raised {type(e).__name__} ({e}), which "
                f"`except {builtin.__name__}` does not catch (torch: {terr})"
            )
    pytest.fail(f"{name}: Lucid raised nothing; torch raised {type(terr).__name__}: {terr}")
