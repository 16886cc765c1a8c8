"""The CPU's intra-op threads: ``lucid.set_num_threads`` / ``get_num_threads``, the pool
that runs an op's pieces, and the kernels that use it giving PyTorch's values on one
thread and on several."""

import multiprocessing
import threading

import numpy as np
import pytest

import lucid
from lucid.backend import threads
from lucid.errors import ArgumentError

torch = pytest.importorskip("torch")


@pytest.fixture
def restore_threads():
    n = lucid.get_num_threads()
    yield
    lucid.set_num_threads(n)


def test_default_is_at_least_one_and_set_round_trips(restore_threads):
    assert lucid.get_num_threads() >= 1
    lucid.set_num_threads(3)
    assert lucid.get_num_threads() == 3
    lucid.set_num_threads(1)
    assert lucid.get_num_threads() == 1


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2", None])
def test_set_num_threads_refuses_what_is_not_a_positive_int(bad):
    with pytest.raises(ArgumentError, match="set_num_threads: expected a positive int"):
        lucid.set_num_threads(bad)


@pytest.mark.parametrize(
    "n,pieces,least", [(10, 3, 1), (7, 2, 1), (1, 4, 1), (0, 2, 1), (10, 4, 4), (33, 2, 1)]
)
def test_split_covers_the_range_in_near_equal_runs(n, pieces, least):
    runs = threads.split(n, pieces, least)
    assert runs[0][0] == 0 and runs[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(runs, runs[1:]))
    lengths = [b - a for a, b in runs]
    assert len(runs) <= max(pieces, 1) and max(lengths) - min(lengths) <= 1
    if len(runs) > 1:
        assert min(lengths) >= least


def test_parallel_keeps_order_and_runs_on_several_threads(restore_threads):
    lucid.set_num_threads(2)
    barrier = threading.Barrier(2, timeout=20)

    def part(i):
        barrier.wait()  # both parts must be running at once to pass
        return i * i, threading.get_ident()

    out = threads.parallel(part, [3, 4])
    assert [v for v, _ in out] == [9, 16]
    assert out[0][1] != out[1][1]


def test_parallel_waits_for_every_part_and_raises_the_failure(restore_threads):
    lucid.set_num_threads(2)
    done = []

    def part(i):
        if i == 1:
            raise ValueError("part 1 failed")
        threading.Event().wait(0.05)
        done.append(i)

    with pytest.raises(ValueError, match="part 1 failed"):
        threads.parallel(part, [0, 1, 2])
    assert sorted(done) == [0, 2]


def test_parallel_inside_a_worker_runs_in_turn(restore_threads):
    lucid.set_num_threads(2)

    def inner(i):
        return threads.parallel(lambda j: (i, j), [0, 1])

    assert threads.parallel(inner, [0, 1]) == [[(0, 0), (0, 1)], [(1, 0), (1, 1)]]


def _child_sum(q):
    lucid.set_num_threads(2)
    q.put(threads.parallel(lambda i: i + 1, [1, 2, 3]))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_forked_child_gets_its_own_pool(restore_threads):
    lucid.set_num_threads(2)
    threads.parallel(lambda i: i, [0, 1])  # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_sum, args=(q,))
    p.start()
    assert q.get(timeout=60) == [2, 3, 4]
    p.join(60)
    assert p.exitcode == 0


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 2e-4)])
def test_batch_norm_and_conv_match_torch_on_any_thread_count(restore_threads, n, dtype, tol):
    lucid.set_num_threads(n)
    rng = np.random.default_rng(0)
    # (a sample of 100-200 KiB: batch norm's passes run in several blocks, in two runs)
    x = rng.standard_normal((9, 16, 40, 40)).astype(dtype)
    w = rng.standard_normal((16, 16, 3, 3)).astype(dtype)
    g = rng.standard_normal((9, 16, 40, 40)).astype(dtype)
    outs = {}
    for lib, make in ((lucid, lucid.tensor), (torch, torch.tensor)):
        xt, wt = make(x, requires_grad=True), make(w, requires_grad=True)
        bn = lib.nn.BatchNorm2d(16).to(
            getattr(lib, "float64" if dtype == np.float64 else "float32")
        )
        y = bn(lib.nn.functional.conv2d(xt, wt, padding=1))
        y.backward(make(g))
        outs[lib.__name__] = [
            np.asarray(a.detach().numpy())
            for a in (y, xt.grad, wt.grad, bn.weight.grad, bn.running_var)
        ]
    for a, b in zip(outs["lucid"], outs["torch"]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
