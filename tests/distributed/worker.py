"""What each MPI rank runs for tests/distributed: ``worker.py OUTDIR CHECKS...``.

Every check runs on every rank and compares Lucid's result with its NumPy definition,
computed from the inputs all ranks are known to hold (rank ``r``'s input is a function of
``r``); each rank writes ``OUTDIR/rank<r>.json``: check name -> "ok" or the failure. The
``kill`` and ``hang`` checks end the job instead (tests/distributed/test_failures.py).
"""

import json
import os
import signal
import sys
import time
import traceback

import numpy as np

import lucid
import lucid.distributed as dist
import lucid.nn as nn
import lucid.nn.functional as F
import lucid.optim as optim
from lucid.nn.parallel import DistributedDataParallel as DDP

DTYPES = {
    "float32": lucid.float32,
    "float64": lucid.float64,
    "int64": lucid.int64,
    "int32": lucid.int32,
    "int16": lucid.int16,
    "uint8": lucid.uint8,
    "float16": lucid.float16,
    "bfloat16": lucid.bfloat16,
}
REDUCE = {
    "SUM": lambda a: a.sum(0),
    "PRODUCT": lambda a: a.prod(0),
    "MIN": lambda a: a.min(0),
    "MAX": lambda a: a.max(0),
    "AVG": lambda a: a.mean(0),
}


def value(r, shape, dtype, salt=0):
    """Rank ``r``'s input: small integers (exact in every dtype, products included)."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 + 3 * r + salt) % 5 - 1).reshape(shape)
    if dtype in ("uint8",):
        v = np.abs(v)
    return v


def T(a, dtype):
    return (
        lucid.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=DTYPES[dtype])
        if np.ndim(a)
        else lucid.tensor(float(a), dtype=DTYPES[dtype])
    )


TOL = {lucid.float16: 1e-3, lucid.bfloat16: 8e-3}


def close(t, want, what):
    got = np.asarray(t.to(lucid.float64).tolist())
    tol = TOL.get(t.dtype, 1e-6)
    if not np.allclose(got, want, rtol=tol, atol=tol):
        raise AssertionError(f"{what}: got {got.tolist()}, want {np.asarray(want).tolist()}")


# -- collectives -------------------------------------------------------------------------


def check_all_reduce(r, w):
    for dtype in DTYPES:
        for name, f in REDUCE.items():
            if name == "AVG" and dtype not in ("float32", "float64", "float16", "bfloat16"):
                continue
            for shape in [(3, 4), (), (0,)]:
                x = T(value(r, shape, dtype), dtype)
                want = f(np.stack([value(q, shape, dtype) for q in range(w)]).astype(float))
                dist.all_reduce(x, getattr(dist.ReduceOp, name))
                if x.dtype != DTYPES[dtype] or tuple(x.shape) != shape:
                    raise AssertionError(f"all_reduce {dtype}: result {x.dtype} {x.shape}")
                close(x, want, f"all_reduce {name} {dtype} {shape}")
    b = lucid.tensor([r == 0, True, False])  # SUM is or, PRODUCT is and
    dist.all_reduce(b)
    assert b.tolist() == [True, True, False], b
    b = lucid.tensor([r == 0, True, False])
    dist.all_reduce(b, dist.ReduceOp.PRODUCT)
    assert b.tolist() == [w == 1, True, False], b
    base = lucid.arange(12, dtype=lucid.float32).reshape(3, 4) * (r + 1)
    view = base.t()  # non-contiguous, in place
    dist.all_reduce(view)
    close(base, np.arange(12).reshape(3, 4) * sum(range(1, w + 1)), "all_reduce view")


def check_complex(r, w):
    """complex64/complex128: SUM, AVG and (on MPI) PRODUCT as the complex arithmetic;
    moves keep both parts; MIN and MAX raise."""
    from lucid.errors import DTypeError

    def cvalue(q):
        return value(q, (2, 3), "float64") + 1j * value(q + 1, (2, 3), "float64")

    every = np.stack([cvalue(q) for q in range(w)])
    ops = {"SUM": every.sum(0), "AVG": every.mean(0)}
    if dist.get_backend() == "mpi":
        ops["PRODUCT"] = every.prod(0)
    for dtype in (lucid.complex64, lucid.complex128):
        for name, want in ops.items():
            x = lucid.tensor(cvalue(r).tolist(), dtype=dtype)
            dist.all_reduce(x, getattr(dist.ReduceOp, name))
            assert x.dtype == dtype
            close(x.real, want.real, f"all_reduce {name} {dtype} (real)")
            close(x.imag, want.imag, f"all_reduce {name} {dtype} (imag)")
        out = [lucid.zeros(2, 3, dtype=dtype) for _ in range(w)]
        dist.all_gather(out, lucid.tensor(cvalue(r).tolist(), dtype=dtype))
        close(lucid.stack(out).imag, every.imag, f"all_gather {dtype}")
        try:
            dist.all_reduce(lucid.ones(2, dtype=dtype), dist.ReduceOp.MAX)
        except DTypeError as e:
            assert "MAX is not supported for" in str(e), e
        else:
            raise AssertionError("no DTypeError for MAX of complex tensors")


def check_async(r, w):
    xs = [lucid.full((5,), float(r + k)) for k in range(3)]
    works = [dist.all_reduce(x, async_op=True) for x in xs]
    for k, (x, wk) in enumerate(zip(xs, works)):
        assert wk.wait() is True
        assert wk.is_completed()
        close(x, np.full(5, sum(q + k for q in range(w))), "async all_reduce")
    wk = dist.broadcast(lucid.full((2,), float(r)), 0, async_op=True)
    wk.wait()
    assert dist.barrier(async_op=True).wait()


def check_broadcast(r, w):
    for src in range(w):
        for dtype in ("float32", "bfloat16", "int64"):
            x = T(value(r, (2, 3), dtype), dtype)
            dist.broadcast(x, src)
            close(x, value(src, (2, 3), dtype), f"broadcast {dtype} from {src}")


def check_views_and_scalars(r, w):
    """Non-contiguous views and 0-d tensors are written in place by every kind of
    collective (staged through a contiguous copy and written back)."""
    base = lucid.arange(6, dtype=lucid.float64).reshape(2, 3) + 10 * r
    dist.broadcast(base.t(), w - 1)
    close(base, np.arange(6).reshape(2, 3) + 10 * (w - 1), "broadcast into a view")
    s = lucid.tensor(float(r + 1))
    dist.all_reduce(s, dist.ReduceOp.PRODUCT)
    assert s.dim() == 0
    close(s, float(np.prod(np.arange(1, w + 1))), "0-d all_reduce")
    out = [lucid.zeros(()) for _ in range(w)]
    dist.all_gather(out, lucid.tensor(float(r)))
    close(lucid.stack(out), np.arange(w), "0-d all_gather")
    big = lucid.zeros(3, 2 * w)
    dist.all_gather_into_tensor(big.t(), lucid.full((2, 3), float(r)))  # view as output
    close(big.t(), np.repeat(np.arange(w), 2)[:, None] * np.ones((1, 3)), "agit view")


def check_reduce(r, w):
    for dst in range(w):
        for name in ("SUM", "MAX", "AVG"):
            x = T(value(r, (4,), "float32"), "float32")
            dist.reduce(x, dst, getattr(dist.ReduceOp, name))
            want = REDUCE[name](np.stack([value(q, (4,), "float32") for q in range(w)]))
            close(x, want if r == dst else value(r, (4,), "float32"), f"reduce {name}")


def check_all_gather(r, w):
    for dtype in ("float32", "float16", "bfloat16", "int32", "uint8"):
        x = T(value(r, (2, 2), dtype), dtype)
        out = [lucid.zeros(2, 2, dtype=DTYPES[dtype]) for _ in range(w)]
        dist.all_gather(out, x)
        for q in range(w):
            close(out[q], value(q, (2, 2), dtype), f"all_gather {dtype} [{q}]")
    x = T(value(r, (2, 3), "float32"), "float32")
    out = lucid.zeros(2 * w, 3)
    dist.all_gather_into_tensor(out, x)
    close(out, np.concatenate([value(q, (2, 3), "float32") for q in range(w)]), "agit")
    out = lucid.zeros(w, 2, 3)
    dist.all_gather_into_tensor(out, x)
    close(out, np.stack([value(q, (2, 3), "float32") for q in range(w)]), "agit stacked")


def check_reduce_scatter(r, w):
    ins = [T(value(r, (3,), "float32", salt=j), "float32") for j in range(w)]
    out = lucid.zeros(3)
    dist.reduce_scatter(out, ins)
    close(out, sum(value(q, (3,), "float32", salt=r) for q in range(w)), "reduce_scatter")
    for name in ("SUM", "MAX", "AVG"):
        big = T(value(r, (2 * w, 2), "float64"), "float64")
        out = lucid.zeros(2, 2, dtype=lucid.float64)
        dist.reduce_scatter_tensor(out, big, getattr(dist.ReduceOp, name))
        allin = np.stack([value(q, (2 * w, 2), "float64") for q in range(w)])
        close(out, REDUCE[name](allin)[2 * r : 2 * r + 2], f"reduce_scatter_tensor {name}")


def check_gather_scatter(r, w):
    for root in range(w):
        x = T(value(r, (3,), "int64"), "int64")
        lst = [lucid.zeros(3, dtype=lucid.int64) for _ in range(w)] if r == root else None
        dist.gather(x, lst, dst=root)
        if r == root:
            for q in range(w):
                close(lst[q], value(q, (3,), "int64"), f"gather [{q}]")
        out = lucid.zeros(2, 2)
        src = [T(value(q + 10 * root, (2, 2), "float32"), "float32") for q in range(w)]
        dist.scatter(out, src if r == root else None, src=root)
        close(out, value(r + 10 * root, (2, 2), "float32"), "scatter")


def check_all_to_all(r, w):
    ins = [lucid.full((j + 1, 2), float(10 * r + j)) for j in range(w)]
    outs = [lucid.zeros(r + 1, 2) for _ in range(w)]
    dist.all_to_all(outs, ins)
    for i in range(w):
        close(outs[i], np.full((r + 1, 2), 10 * i + r), f"all_to_all [{i}]")
    inp = lucid.arange(w * 2, dtype=lucid.float32) + 100 * r
    out = lucid.zeros(w * 2)
    dist.all_to_all_single(out, inp)
    close(
        out,
        np.concatenate([np.arange(2 * r, 2 * r + 2) + 100 * i for i in range(w)]),
        "all_to_all_single",
    )


def check_send_recv(r, w):
    nxt, prv = (r + 1) % w, (r - 1) % w
    x = lucid.full((4,), float(r), dtype=lucid.float64)
    y = lucid.zeros(4, dtype=lucid.float64)
    sw = dist.isend(x, nxt, tag=3)
    rw = dist.irecv(y, prv, tag=3)
    sw.wait()
    assert rw.result() == prv
    close(y, np.full(4, prv), "isend/irecv ring")
    if r == 0:
        got = sorted(dist.recv(lucid.zeros(1)) for _ in range(w - 1))
        assert got == list(range(1, w)), got
    else:
        dist.send(lucid.full((1,), float(r)), 0)


def check_objects(r, w):
    """Picklable objects: all-gathered, gathered to each root, broadcast from each."""
    from lucid.errors import ArgumentError

    mine = {"rank": r, "text": "x" * (5 * r), "nested": [r, (r, None)]}
    got = [None] * w
    dist.all_gather_object(got, mine)
    want = [{"rank": q, "text": "x" * (5 * q), "nested": [q, (q, None)]} for q in range(w)]
    assert got == want, got
    for root in range(w):
        lst = [None] * w if r == root else None
        dist.gather_object(("from", r), lst, dst=root)
        if r == root:
            assert lst == [("from", q) for q in range(w)], lst
        objs = [f"root {root}", {root}] if r == root else [None, None]
        dist.broadcast_object_list(objs, src=root)
        assert objs == [f"root {root}", {root}], objs
    try:
        dist.all_gather_object([None] * (w + 1), 1)
    except ArgumentError as e:
        assert "one slot per rank" in str(e), e
    else:
        raise AssertionError("no ArgumentError for a list of the wrong length")


def check_new_group(r, w):
    ranks = list(range(1, w))
    g = dist.new_group(ranks)
    if r == 0:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1
        return
    assert dist.get_rank(g) == r - 1 and dist.get_world_size(g) == w - 1
    x = lucid.full((2,), float(r))
    dist.all_reduce(x, group=g)
    close(x, np.full(2, sum(ranks)), "new_group all_reduce")
    y = lucid.full((2,), float(r))
    dist.broadcast(y, src=w - 1, group=g)  # src is a global rank
    close(y, np.full(2, w - 1), "new_group broadcast")
    assert dist.get_process_group_ranks(g) == ranks


def check_errors(r, w):
    from lucid.errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError

    cases = [
        (
            lambda: dist.all_reduce(lucid.ones(2, dtype=lucid.int64), dist.ReduceOp.AVG),
            DTypeError,
            "AVG",
        ),
        (lambda: dist.all_reduce([1.0]), ArgumentTypeError, "Tensor"),
        (lambda: dist.all_reduce(lucid.ones(2), "sum"), ArgumentTypeError, "ReduceOp"),
        (lambda: dist.broadcast(lucid.ones(2), w), ArgumentError, "not part"),
        (
            lambda: dist.all_gather([lucid.ones(2)] * (w + 1), lucid.ones(2)),
            ArgumentError,
            "one tensor per rank",
        ),
        (lambda: dist.all_gather([lucid.ones(3)] * w, lucid.ones(2)), ShapeError, "shape"),
        (
            lambda: dist.all_gather_into_tensor(lucid.ones(w * 2 + 1), lucid.ones(2)),
            ShapeError,
            "world size",
        ),
        (
            lambda: dist.reduce_scatter_tensor(lucid.ones(2), lucid.ones(w * 2, dtype=lucid.int64)),
            DTypeError,
            "dtype",
        ),
        (lambda: dist.send(lucid.ones(1), r), ArgumentError, "own rank"),
    ]
    for f, err, text in cases:
        try:
            f()
        except err as e:
            assert text in str(e), f"{err.__name__} without {text!r}: {e}"
        else:
            raise AssertionError(f"no {err.__name__} ({text})")


def check_debug_shapes(r, w):
    """LUCID_DISTRIBUTED_DEBUG=DETAIL names the ranks whose shapes differ."""
    from lucid.errors import ShapeError

    os.environ["LUCID_DISTRIBUTED_DEBUG"] = "DETAIL"
    try:
        dist.all_reduce(lucid.ones(2, 3))  # equal shapes pass the check
        try:
            dist.all_reduce(lucid.ones(2 + r))
        except ShapeError as e:
            assert "rank 0" in str(e) and "(3,)" in str(e), e
        else:
            raise AssertionError("no ShapeError for shapes that differ across ranks")
    finally:
        del os.environ["LUCID_DISTRIBUTED_DEBUG"]


def check_sampler(r, w):
    from lucid.utils.data import DistributedSampler

    s = DistributedSampler(range(10))  # replicas and rank from the group
    assert (s.num_replicas, s.rank) == (w, r)
    mine = list(s)
    out = [lucid.zeros(len(mine), dtype=lucid.int64) for _ in range(w)]
    dist.all_gather(out, lucid.tensor(mine, dtype=lucid.int64))
    union = sorted(set(i for o in out for i in o.tolist()))
    assert union == list(range(10)), union


# -- DDP ---------------------------------------------------------------------------------


def mlp():
    return nn.Sequential(
        nn.Linear(12, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 4)
    )


def cnn():
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 4 * 4, 4),
    )


def batches(kind, steps, n):
    g = np.random.default_rng(7)
    shape = (n, 12) if kind == "mlp" else (n, 3, 8, 8)
    return [
        (g.standard_normal(shape).astype(np.float32), g.integers(0, 4, n)) for _ in range(steps)
    ]


def train(model, data, opt, steps_per_sync=1, ddp=None):
    losses = []
    for k, (x, y) in enumerate(data):
        sync = (k + 1) % steps_per_sync == 0
        ctx = ddp.no_sync() if (ddp is not None and not sync) else _null()
        with ctx:
            loss = F.cross_entropy(model(lucid.tensor(x)), lucid.tensor(y)) / steps_per_sync
            loss.backward()
        losses.append(loss.item())
        if sync:
            opt.step()
            opt.zero_grad()
    return losses


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def ddp_case(r, w, kind, steps_per_sync=1, **ddp_kw):
    """DDP on local batches of 4 against one process on the global batch of 4w."""
    steps, per = 20, 4
    data = batches(kind, steps, per * w)
    lucid.manual_seed(0)
    ref = mlp() if kind == "mlp" else cnn()
    lucid.manual_seed(100 + r)  # each rank starts elsewhere: DDP broadcasts
    mine = mlp() if kind == "mlp" else cnn()
    if kind == "cnn":
        mine = nn.SyncBatchNorm.convert_sync_batchnorm(mine)
    if r == 0:
        mine.load_state_dict(ref.state_dict())
    model = DDP(mine, **ddp_kw)
    opt_ref = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    train(ref, data, opt_ref, steps_per_sync)
    local = [(x[r * per : (r + 1) * per], y[r * per : (r + 1) * per]) for x, y in data]
    train(model, local, opt, steps_per_sync, ddp=model)
    for (name, a), b in zip(ref.state_dict().items(), model.module.state_dict().values()):
        a = np.asarray(a.to(lucid.float64).tolist())
        b = np.asarray(b.to(lucid.float64).tolist())
        if not np.allclose(a, b, rtol=2e-4, atol=2e-5):
            raise AssertionError(
                f"{kind}: {name} differs from single-process training by {np.abs(a - b).max():.3g}"
            )
    return model


def check_ddp_mlp(r, w):
    ddp_case(r, w, "mlp")


def check_ddp_gpt(r, w):
    """The small GPT of benchmarks/transformer.py, 50 AdamW steps: the DDP losses
    (averaged over the ranks' local batches) are those of one process on the global
    batch."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    from transformer import gpt

    steps, per, seq, vocab = 50, 2, 16, 64
    g = np.random.default_rng(5)
    data = [
        (g.integers(0, vocab, (per * w, seq)), g.integers(0, vocab, per * w * seq))
        for _ in range(steps)
    ]
    lucid.manual_seed(0)
    ref = gpt(lucid, vocab, 32, 2, 2, seq, attention="sdpa")
    lucid.manual_seed(0)
    model = DDP(gpt(lucid, vocab, 32, 2, 2, seq, attention="sdpa"))
    opts = [optim.AdamW(m.parameters(), lr=1e-3) for m in (ref, model)]
    for k, (x, y) in enumerate(data):
        xs, ys = x[r * per : (r + 1) * per], y[r * per * seq : (r + 1) * per * seq]
        losses = []
        for m, opt, (a, b) in zip((ref, model), opts, ((x, y), (xs, ys))):
            opt.zero_grad()
            loss = F.cross_entropy(m(lucid.tensor(a)).reshape(-1, vocab), lucid.tensor(b))
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        mean = losses[1].clone()
        dist.all_reduce(mean, dist.ReduceOp.AVG)
        if not np.isclose(mean.item(), losses[0].item(), rtol=1e-3, atol=1e-4):
            raise AssertionError(
                f"gpt: step {k} DDP loss {mean.item():.6f} against "
                f"{losses[0].item():.6f} on the global batch"
            )


def check_ddp_mlp_small_buckets(r, w):
    model = ddp_case(r, w, "mlp", bucket_cap_mb=0.0001)  # a bucket per parameter
    assert len(model.reducer.buckets) == len(list(model.parameters()))
    assert len(DDP(mlp()).reducer.buckets) == 1  # 25 MiB hold this MLP whole


def check_ddp_overlap(r, w):
    """Each bucket's all-reduce starts, asynchronously, during the backward: the first one
    while most gradients are still to come, and none waits before the last is started."""
    model = DDP(mlp(), bucket_cap_mb=0.0001)
    launched = []
    real = dist.all_reduce

    def spy(t, op=dist.ReduceOp.SUM, group=None, async_op=False):
        launched.append((sum(model.reducer.ready), async_op))
        return real(t, op, group, async_op)

    dist.all_reduce = spy
    try:
        model(lucid.ones(2, 12)).sum().backward()
    finally:
        dist.all_reduce = real
    n = len(list(model.parameters()))
    assert [a for _, a in launched] == [True] * n, launched
    assert [k for k, _ in launched] == list(range(1, n + 1)), launched


def check_ddp_broadcast_buffers(r, w):
    """broadcast_buffers: each forward starts from rank 0's BatchNorm statistics; without
    it every rank keeps its own."""
    for flag in (True, False):
        lucid.manual_seed(0)
        model = DDP(cnn(), broadcast_buffers=flag)
        x = lucid.randn(4, 3, 8, 8) + r  # each rank's own statistics
        model(x).sum().backward()
        model.eval()
        with lucid.no_grad():
            model(x)
        mean = model.module[1].running_mean
        every = [lucid.zeros_like(mean) for _ in range(w)]
        dist.all_gather(every, mean)
        same = all(np.allclose(e.tolist(), every[0].tolist()) for e in every)
        assert same == flag, f"broadcast_buffers={flag}: ranks agree: {same}"


def check_ddp_bucket_view(r, w):
    """gradient_as_bucket_view trains alike, and leaves each .grad a view of its bucket."""
    model = ddp_case(r, w, "mlp", bucket_cap_mb=0.001, gradient_as_bucket_view=True)
    for b in model.reducer.buckets:
        for k, p in enumerate(b.params):
            assert p.grad is None or p.grad.data_ptr() == b.slot(k).data_ptr()
    x = lucid.ones(2, 12)
    model(x).sum().backward()
    for b in model.reducer.buckets:
        for k, p in enumerate(b.params):
            assert p.grad.data_ptr() == b.slot(k).data_ptr(), "grad is not a bucket view"


def check_ddp_cnn_syncbn(r, w):
    ddp_case(r, w, "cnn")


def check_ddp_no_sync(r, w):
    ddp_case(r, w, "mlp", steps_per_sync=2)


def check_ddp_unused(r, w):
    """find_unused_parameters: a branch that only rank 0 uses still gets the mean of the
    gradients (rank 0's over w); a branch nobody uses keeps .grad None."""

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = nn.Linear(3, 2), nn.Linear(3, 2), nn.Linear(3, 2)

        def forward(self, x, use_b):
            return self.a(x) + (self.b(x) if use_b else 0)

    lucid.manual_seed(0)
    net = Net()
    model = DDP(net, bucket_cap_mb=1e-5, find_unused_parameters=True)
    x = lucid.ones(1, 3) * (r + 1)
    model(x, r == 0).sum().backward()
    assert net.c.weight.grad is None
    close(net.b.weight.grad, np.ones((2, 3)) / w, "unused b")
    close(net.a.weight.grad, np.ones((2, 3)) * sum(q + 1 for q in range(w)) / w, "used a")


def check_ddp_stall_error(r, w):
    """Without find_unused_parameters a parameter without gradient stalls its bucket: the
    next forward says so (a forward without backward does not)."""
    from lucid.errors import DistributedError

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)

    model = DDP(Net(), find_unused_parameters=True)
    model(lucid.ones(1, 2))  # forwards without a backward are
    model(lucid.ones(1, 2)).sum().backward()  # fine, before one with it
    model = DDP(Net())
    model(lucid.ones(1, 2))
    model(lucid.ones(1, 2)).sum().backward()
    try:
        model(lucid.ones(1, 2))
    except DistributedError as e:
        assert "find_unused_parameters" in str(e), e
    else:
        raise AssertionError("no DistributedError for a stalled bucket")


def check_ddp_frozen_parameters(r, w):
    """Frozen parameters take rank 0's values too, and get no gradient."""
    lucid.manual_seed(r)
    net = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    net[0].weight.requires_grad_(False)
    model = DDP(net)
    w0 = net[0].weight
    every = [lucid.zeros_like(w0) for _ in range(w)]
    dist.all_gather(every, w0.detach())
    assert all(np.array_equal(e.tolist(), every[0].tolist()) for e in every)
    model(lucid.ones(2, 3)).sum().backward()
    assert w0.grad is None and net[1].weight.grad is not None


def check_ddp_mismatch(r, w):
    from lucid.errors import DistributedError

    try:
        DDP(nn.Linear(2, 2 + (r == 0)))
    except DistributedError as e:
        assert "differ" in str(e), e
    else:
        raise AssertionError("no DistributedError for models that differ across ranks")


def check_syncbn_grad(r, w):
    """SyncBatchNorm's forward and input gradient equal BatchNorm's on the whole batch."""
    g = np.random.default_rng(3)
    full = g.standard_normal((2 * w, 3, 4)).astype(np.float64)
    up = g.standard_normal((2 * w, 3, 4))
    bn = nn.BatchNorm1d(3).to(lucid.float64)
    xb = lucid.tensor(full.tolist(), dtype=lucid.float64, requires_grad=True)
    yb = bn(xb)
    (yb * lucid.tensor(up.tolist(), dtype=lucid.float64)).sum().backward()
    sbn = nn.SyncBatchNorm(3).to(lucid.float64)
    xs = lucid.tensor(full[2 * r : 2 * r + 2].tolist(), dtype=lucid.float64, requires_grad=True)
    ys = sbn(xs)
    (ys * lucid.tensor(up[2 * r : 2 * r + 2].tolist(), dtype=lucid.float64)).sum().backward()
    close(ys, np.asarray(yb.detach().tolist())[2 * r : 2 * r + 2], "SyncBatchNorm forward")
    close(xs.grad, np.asarray(xb.grad.tolist())[2 * r : 2 * r + 2], "SyncBatchNorm input grad")
    close(sbn.running_var, bn.running_var.tolist(), "SyncBatchNorm running_var")
    close(sbn.running_mean, bn.running_mean.tolist(), "SyncBatchNorm running_mean")


# -- failures ------------------------------------------------------------------------------


def check_kill(r, w):
    """Rank 1 dies in the middle of a stream of all-reduces; the others must fail."""
    x = lucid.ones(1000)
    for k in range(50):
        if r == 1 and k == 20:
            os.kill(os.getpid(), signal.SIGKILL)
        dist.all_reduce(x)


def check_hang(r, w):
    """Rank 1 does not reach the all-reduce until the others have timed out, then ends
    without a result (bounded: no process outlives the test)."""
    if r == 1:
        time.sleep(4 * float(os.environ.get("WORKER_TIMEOUT", "60")) + 5)
        os._exit(1)
    dist.all_reduce(lucid.ones(4))


def check_nccl_needs_cuda_tensors(r, w):
    from lucid.errors import DistributedError

    try:
        dist.all_reduce(lucid.ones(2, device="cpu"))
    except DistributedError as e:
        assert "moves CUDA tensors, got a tensor on cpu" in str(e), e
    else:
        raise AssertionError("no DistributedError for a CPU tensor on nccl")


def main():
    """``WORKER_BACKEND`` (mpi) and ``WORKER_DEVICE`` (cpu: where the checks make their
    tensors and models) choose what runs; tests/cuda/test_distributed_nccl.py sets them."""
    out, checks = sys.argv[1], sys.argv[2:]
    timeout = float(os.environ.get("WORKER_TIMEOUT", "60"))
    device = os.environ.get("WORKER_DEVICE", "cpu")
    if device == "cuda" and "LOCAL_RANK" in os.environ and lucid.cuda.device_count() > 1:
        device = f"cuda:{os.environ['LOCAL_RANK']}"  # one GPU a process (NCCL)
        lucid.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    lucid.set_default_device(device)
    dist.init_process_group(os.environ.get("WORKER_BACKEND", "mpi"), timeout=timeout)
    r, w = dist.get_rank(), dist.get_world_size()
    results = {}
    for name in checks:
        try:
            globals()["check_" + name](r, w)
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()
    with open(os.path.join(out, f"rank{r}.json"), "w") as f:
        json.dump(results, f)
    try:
        dist.barrier()
        dist.destroy_process_group()
    finally:
        if any(v != "ok" for v in results.values()):
            sys.exit(1)  # the launch's status says a check failed (a dead peer among them:
            #                 MPI's fault tolerance may otherwise end the job with status 0)


if __name__ == "__main__":
    main()
