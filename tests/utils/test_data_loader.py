"""lucid.utils.data.DataLoader: batching, shuffling and seeds, worker processes (same batches
as in the main process, seeds, exceptions, dead workers, timeouts, iterable datasets,
persistent workers). Each test that starts workers runs under an alarm, so a hang fails
the test instead of stalling the suite."""

import collections
import multiprocessing
import os
import random
import signal

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import lucid
from lucid.errors import ArgumentError
from lucid.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    get_worker_info,
)


@pytest.fixture
def deadline():
    """Fail (instead of hanging) if the test runs past 30 s."""

    def on_alarm(signum, frame):
        raise TimeoutError("the DataLoader test hung")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def data(n=10):
    x = lucid.arange(n * 3, dtype=lucid.float32).reshape(n, 3)
    return TensorDataset(x, lucid.arange(n))


def labels(loader):
    return [b[1].tolist() for b in loader]


class Squares(Dataset):
    def __init__(self, n=12):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"i": i, "sq": lucid.tensor([float(i * i)]), "pair": (i, str(i))}


class WorkerSeeds(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return (
            info.id,
            info.seed,
            lucid.rand(()).item(),
            random.random(),
            np.random.randint(1 << 30),
            os.getpid(),
        )


class Failing(Dataset):
    def __init__(self, bad=5, exc=ValueError):
        self.bad, self.exc = bad, exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"sample {i} is broken")
        return i


class Dying(Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 6 and get_worker_info() is not None:
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Sharded(IterableDataset):
    """0..n-1 split between the workers by get_worker_info."""

    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class Blocking(Dataset):
    def __init__(self):
        self.event = multiprocessing.get_context("fork").Event()

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.event.wait()  # never set: the worker never answers
        return i


class Pids(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.getpid()


# -- batching --------------------------------------------------------------------------


@pytest.mark.parametrize("bs, drop", [(3, False), (3, True), (1, False), (10, False), (20, True)])
def test_batches_match_torch(bs, drop):
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    ours = list(
        DataLoader(TensorDataset(lucid.tensor(x), lucid.arange(10)), batch_size=bs, drop_last=drop)
    )
    theirs = list(
        tud.DataLoader(
            tud.TensorDataset(torch.tensor(x), torch.arange(10)), batch_size=bs, drop_last=drop
        )
    )
    assert len(ours) == len(theirs)
    for (a, b), (c, d) in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), d.numpy())
    assert len(DataLoader(data(), batch_size=bs, drop_last=drop)) == len(theirs)


def test_batch_size_none_converts_samples_without_batching():
    class Arrays(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return (np.full(2, i, np.float32), i)

    out = list(DataLoader(Arrays(), batch_size=None))
    assert len(out) == 3
    assert isinstance(out[1], list) and isinstance(out[1][0], lucid.Tensor)
    assert out[1][0].tolist() == [1.0, 1.0] and out[1][1] == 1
    with pytest.raises(ArgumentError, match="mutually exclusive with drop_last"):
        DataLoader(Arrays(), batch_size=None, drop_last=True)


def test_batch_sampler_and_sampler_options():
    bs = BatchSampler(SequentialSampler(range(10)), 4, drop_last=False)
    assert labels(DataLoader(data(), batch_sampler=bs)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert labels(DataLoader(data(), batch_sampler=[[9, 0], [5]])) == [[9, 0], [5]]
    assert labels(DataLoader(data(), batch_size=2, sampler=[3, 1, 4])) == [[3, 1], [4]]
    for kw in ({"batch_size": 2}, {"shuffle": True}, {"sampler": [1]}, {"drop_last": True}):
        with pytest.raises(ArgumentError, match="batch_sampler option is mutually exclusive"):
            DataLoader(data(), batch_sampler=bs, **kw)
    with pytest.raises(ArgumentError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(data(), sampler=[1], shuffle=True)


def test_custom_collate_fn_and_dict_tuple_samples():
    out = list(DataLoader(Squares(4), batch_size=2))
    assert out[0]["i"].tolist() == [0, 1] and out[1]["sq"].tolist() == [[4.0], [9.0]]
    assert out[0]["pair"][0].tolist() == [0, 1] and out[0]["pair"][1] == ("0", "1")
    seen = []
    out = list(
        DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: seen.append(b) or sum(b))
    )
    assert out == [1, 5, 4] and seen == [[0, 1], [2, 3], [4]]


def test_shuffle_reproducible_under_manual_seed_and_generator():
    def order(**kw):
        return sum(labels(DataLoader(data(20), batch_size=4, shuffle=True, **kw)), [])

    lucid.manual_seed(0)
    a = order()
    lucid.manual_seed(0)
    assert order() == a
    assert sorted(a) == list(range(20))
    lucid.manual_seed(1)
    assert order() != a
    g = lambda s: lucid.Generator().manual_seed(s)  # noqa: E731
    assert order(generator=g(7)) == order(generator=g(7))
    assert order(generator=g(7)) != order(generator=g(8))
    loader = DataLoader(data(20), batch_size=4, shuffle=True, generator=g(7))
    assert sum(labels(loader), []) != sum(labels(loader), [])  # a new order per epoch


def test_pin_memory_accepted():
    out = list(DataLoader(Squares(4), batch_size=2, pin_memory=True))
    assert out[1]["sq"].tolist() == [[4.0], [9.0]] and out[1]["pair"][1] == ("2", "3")


def test_argument_checks():
    with pytest.raises(ArgumentError, match="num_workers option should be non-negative"):
        DataLoader(data(), num_workers=-1)
    with pytest.raises(ArgumentError, match="timeout option should be non-negative"):
        DataLoader(data(), timeout=-1)
    with pytest.raises(ArgumentError, match="prefetch_factor option could only be specified"):
        DataLoader(data(), prefetch_factor=2)
    with pytest.raises(ArgumentError, match="persistent_workers option needs num_workers"):
        DataLoader(data(), persistent_workers=True)
    with pytest.raises(ArgumentError, match="multiprocessing_context can only be used"):
        DataLoader(data(), multiprocessing_context="fork")
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ArgumentError, match="with IterableDataset: expected unspecified"):
            DataLoader(Sharded(4), **kw)
    loader = DataLoader(data())
    for name in ("batch_size", "sampler", "dataset", "drop_last"):
        with pytest.raises(ArgumentError, match=f"{name} attribute should not be set"):
            setattr(loader, name, None)
    assert loader.prefetch_factor is None
    assert DataLoader(data(), num_workers=1).prefetch_factor == 2


def test_iterable_dataset_in_main_process():
    assert [b.tolist() for b in DataLoader(Sharded(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Sharded(7), batch_size=3, drop_last=True)] == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert list(DataLoader(Sharded(3), batch_size=None)) == [0, 1, 2]
    assert len(DataLoader(Sharded(7), batch_size=3)) == 3
    assert len(DataLoader(Sharded(7), batch_size=3, drop_last=True)) == 2


# -- worker processes ------------------------------------------------------------------


def test_workers_give_the_same_batches_as_the_main_process(deadline):
    for kw in ({}, {"shuffle": True, "generator": lucid.Generator().manual_seed(3)}):
        lucid.manual_seed(11)
        main = list(DataLoader(Squares(), batch_size=3, **kw))
        if "generator" in kw:
            kw["generator"] = lucid.Generator().manual_seed(3)
        lucid.manual_seed(11)
        workers = list(DataLoader(Squares(), batch_size=3, num_workers=2, **kw))
        assert len(main) == len(workers) == 4
        for a, b in zip(main, workers):
            assert a["i"].tolist() == b["i"].tolist()
            assert a["sq"].tolist() == b["sq"].tolist() and a["pair"][1] == b["pair"][1]


def test_shuffle_with_workers_is_reproducible(deadline):
    def order():
        lucid.manual_seed(5)
        return sum(
            labels(
                DataLoader(data(16), batch_size=2, shuffle=True, num_workers=2, prefetch_factor=1)
            ),
            [],
        )

    a = order()
    assert a == order() and sorted(a) == list(range(16)) and a != list(range(16))


def test_worker_seeds_differ_and_follow_the_base_seed(deadline):
    def run():
        lucid.manual_seed(0)
        return list(DataLoader(WorkerSeeds(), batch_size=None, num_workers=2))

    out = run()
    by_worker = {}
    for wid, seed, _r, _pr, _npr, pid in out:
        by_worker.setdefault(wid, set()).add((seed, pid))
    assert set(by_worker) == {0, 1}
    ((s0, p0),) = by_worker[0]
    ((s1, p1),) = by_worker[1]
    assert s1 == s0 + 1 and p0 != p1 != os.getpid()
    # each worker's lucid, random and NumPy streams start from its seed: they differ
    first = {o[0]: o[2:5] for o in reversed(out)}
    assert all(a != b for a, b in zip(first[0], first[1]))
    again = run()
    assert [o[:5] for o in again] == [o[:5] for o in out]  # reproducible under the seed
    lucid.manual_seed(1)
    other = list(DataLoader(WorkerSeeds(), batch_size=None, num_workers=2))
    assert other[0][1] != out[0][1]


def _init_fn(worker_id):
    random.seed(1000 + worker_id)
    lucid.manual_seed(1000 + worker_id)


def test_worker_init_fn_runs_in_each_worker_after_seeding(deadline):
    out = list(DataLoader(WorkerSeeds(), batch_size=None, num_workers=2, worker_init_fn=_init_fn))
    first = {o[0]: o for o in reversed(out)}
    for wid in (0, 1):
        random.seed(1000 + wid)
        assert first[wid][3] == random.random()


def test_worker_init_fn_error_is_reported(deadline):
    def bad_init(worker_id):
        raise RuntimeError(f"init of {worker_id} failed")

    with pytest.raises(RuntimeError, match=r"worker_init_fn(.|\n)*init of 0 failed"):
        list(DataLoader(data(), batch_size=2, num_workers=2, worker_init_fn=bad_init))


def test_worker_exception_reaches_main_with_traceback_and_index(deadline):
    with pytest.raises(ValueError) as info:
        list(DataLoader(Failing(5), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0" in msg
    assert "while fetching sample index 5 (batch indices [4, 5])" in msg
    assert "Original Traceback (most recent call last)" in msg
    assert 'raise self.exc(f"sample {i} is broken")' in msg
    assert "ValueError: sample 5 is broken" in msg
    with pytest.raises(ValueError, match="sample index 3"):  # no batching
        list(DataLoader(Failing(3), batch_size=None, num_workers=2))


def test_worker_exception_types(deadline):
    with pytest.raises(KeyError) as info:
        list(DataLoader(Failing(1, KeyError), batch_size=2, num_workers=1))
    assert "Caught KeyError" in str(info.value) and "\\n" not in str(info.value)

    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    class Raises(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            raise Odd(1, 2)

    with pytest.raises(RuntimeError, match="Caught Odd"):
        list(DataLoader(Raises(), batch_size=1, num_workers=1))


def test_collate_error_in_worker_names_the_batch(deadline):
    def collate(batch):
        raise TypeError("cannot collate")

    with pytest.raises(TypeError, match=r"while collating the batch of indices \[0, 1\]"):
        list(DataLoader(data(), batch_size=2, num_workers=1, collate_fn=collate))


def test_unpicklable_batch_is_reported(deadline):
    with pytest.raises(Exception, match="while sending the batch to the main process"):
        list(
            DataLoader(list(range(4)), batch_size=2, num_workers=1, collate_fn=lambda b: lambda: b)
        )


@pytest.mark.parametrize(
    "how, match",
    [
        ("exit", r"DataLoader worker \d \(pid \d+\) exited unexpectedly with exit code 3"),
        ("kill", r"DataLoader worker \d \(pid \d+\) was killed by signal SIGKILL \(9\)"),
    ],
)
def test_dead_worker_is_reported_not_waited_for(deadline, how, match):
    loader = DataLoader(Dying(how), batch_size=2, num_workers=2)
    got = []
    with pytest.raises(RuntimeError, match=match):
        for b in loader:
            got.append(b.tolist())
    # batches of the live worker that arrived first were delivered in order
    assert got == [[0, 1], [2, 3], [4, 5]][: len(got)]


def test_timeout(deadline):
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        next(iter(DataLoader(Blocking(), batch_size=2, num_workers=1, timeout=0.3)))


def test_iterable_dataset_with_workers_shards_by_worker_info(deadline):
    out = [b.tolist() for b in DataLoader(Sharded(10), batch_size=3, num_workers=2)]
    assert sorted(sum(out, [])) == list(range(10))
    assert out == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]  # round robin over the workers
    out = [b.tolist() for b in DataLoader(Sharded(10), batch_size=3, num_workers=2, drop_last=True)]
    assert out == [[0, 2, 4], [1, 3, 5]]
    # without sharding every worker yields its own full copy
    copies = sum(
        [b.tolist() for b in DataLoader(Sharded(5, shard=False), batch_size=2, num_workers=2)], []
    )
    assert sorted(copies) == sorted(list(range(5)) * 2)
    uneven = sum([b.tolist() for b in DataLoader(Sharded(3), batch_size=2, num_workers=3)], [])
    assert sorted(uneven) == [0, 1, 2]


def test_workers_shut_down_after_the_epoch_and_after_break(deadline):
    it = iter(DataLoader(data(), batch_size=2, num_workers=2))
    procs = list(it._workers)
    assert len(list(it)) == 5
    assert all(not p.is_alive() for p in procs)
    it = iter(DataLoader(data(), batch_size=2, num_workers=2))
    next(it)
    procs = list(it._workers)
    it._shutdown()
    assert all(not p.is_alive() for p in procs)
    assert list(DataLoader([], batch_size=2, num_workers=2)) == []


def test_persistent_workers_keep_their_processes(deadline):
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = sorted(sum([b.tolist() for b in loader], []))
    it = next(iter(loader)) is not None and loader._iterator  # a partial epoch
    second = sorted(sum([b.tolist() for b in loader], []))
    assert first == second and len(set(first)) == 2 and os.getpid() not in first
    it._shutdown()
    fresh = DataLoader(Pids(), batch_size=2, num_workers=2)
    assert set(sum([b.tolist() for b in fresh], [])) != set(first)
    again = DataLoader(Sharded(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in again] == [b.tolist() for b in again] == [[0, 2], [1, 3], [4], [5]]


class Gated(Dataset):
    """Sample 0 waits until the test, having received another batch, opens the gate."""

    def __init__(self):
        self.gate = multiprocessing.get_context("fork").Event()

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 0:
            self.gate.wait(20)
        return i


def test_in_order_false_yields_batches_as_they_arrive(deadline):
    ds = Gated()
    it = iter(DataLoader(ds, batch_size=2, num_workers=2, in_order=False))
    assert next(it).tolist() == [2, 3]  # worker 1's batch, while worker 0 waits
    ds.gate.set()
    assert [b.tolist() for b in it] == [[0, 1]]
    with pytest.raises(RuntimeError, match="timed out"):  # in order: waits for [0, 1]
        next(iter(DataLoader(Gated(), batch_size=2, num_workers=2, timeout=0.5)))
    out = list(DataLoader(data(), batch_size=2, num_workers=2, in_order=False))
    assert sorted(sum([b[1].tolist() for b in out], [])) == list(range(10))


@pytest.mark.parametrize("prefetch", [1, 3])
def test_prefetch_factor_bounds_the_tasks_in_flight(deadline, prefetch):
    it = iter(DataLoader(data(20), batch_size=1, num_workers=2, prefetch_factor=prefetch))
    assert len(it._tasks) == 2 * prefetch
    next(it)
    assert len(it._tasks) + len(it._ready) == 2 * prefetch
    it._shutdown()
    with pytest.raises(ArgumentError, match="prefetch_factor option should be a positive"):
        DataLoader(data(), num_workers=1, prefetch_factor=0)


def test_prefetch_factor_and_context_options(deadline):
    for kw in (
        {"prefetch_factor": 1},
        {"prefetch_factor": 4},
        {"multiprocessing_context": "fork"},
        {"multiprocessing_context": multiprocessing.get_context("fork")},
    ):
        assert labels(DataLoader(data(), batch_size=3, num_workers=2, **kw)) == [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [9],
        ]


P = collections.namedtuple("P", "a b")


class NamedSamples(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return P(lucid.full((2, 2), float(i), dtype=lucid.bfloat16), np.int64(i))


def test_named_tuples_and_tensors_cross_processes_intact(deadline):
    out = list(DataLoader(NamedSamples(), batch_size=2, num_workers=2))
    assert type(out[0]) is P and out[1].a.dtype is lucid.bfloat16
    assert out[1].a.float().tolist() == [[[2.0] * 2] * 2, [[3.0] * 2] * 2]
    assert out[1].b.tolist() == [2, 3]


class Big(Dataset):
    """Samples large enough to travel through shared memory, of several dtypes and
    layouts."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        base = lucid.arange(128 * 256, dtype=lucid.float32).reshape(128, 256) + i
        return {
            "t": base.t(),
            "bf": base.to(lucid.bfloat16),
            "small": lucid.tensor([i]),
            "grad": (base * 0).requires_grad_(),
            "empty": lucid.zeros(0, 1 << 17),
        }


@pytest.mark.parametrize("sharing", [True, False])
def test_large_tensors_travel_intact(deadline, monkeypatch, sharing):
    from lucid.utils.data import _shared

    monkeypatch.setattr(_shared, "SHARING", sharing and _shared.SHARING)
    main = list(DataLoader(Big(), batch_size=2))
    out = list(DataLoader(Big(), batch_size=2, num_workers=2))
    for a, b in zip(main, out):
        for k in a:
            assert b[k].dtype is a[k].dtype and b[k].shape == a[k].shape
            np.testing.assert_array_equal(
                b[k].float().detach().numpy(), a[k].float().detach().numpy()
            )
        assert b["grad"].requires_grad
        assert b["t"].is_shared() == _shared.SHARING
    out[0]["t"].add_(1)  # a batch's storage is its own and writable
    np.testing.assert_array_equal(out[0]["t"].numpy(), main[0]["t"].numpy() + 1)


EXIT_SCRIPT = """
import faulthandler
faulthandler.dump_traceback_later(40, exit=True)     # a hang shows where it is
import lucid
from lucid.utils.data import DataLoader, TensorDataset
ds = TensorDataset(lucid.arange(64.0))
persistent = DataLoader(ds, batch_size=2, num_workers=2, persistent_workers=True)
next(iter(persistent))                          # workers alive, batches in flight
it = iter(DataLoader(ds, batch_size=2, num_workers=2))
next(it)
print("ok", flush=True)
"""


def test_interpreter_exits_with_workers_alive():
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("workers", [0, 2])
def test_tensor_dataset_gathers_batches_as_default_collate_stacks_them(deadline, workers):
    from lucid.utils.data import Subset, random_split

    x = lucid.randn(10, 2, 3).to(lucid.float64)
    ds = TensorDataset(x, lucid.arange(10), lucid.rand(10) > 0.5)
    sampler = [3, -1, 0, 9, 4, -10, 2]
    fast = list(DataLoader(ds, batch_size=3, sampler=sampler, num_workers=workers))
    slow = list(
        DataLoader(
            ds,
            batch_size=3,
            sampler=sampler,
            num_workers=workers,
            collate_fn=lambda b: lucid.utils.data.default_collate(b),
        )
    )
    part, _ = random_split(
        Subset(ds, list(range(9, -1, -1))), [7, 3], generator=lucid.Generator().manual_seed(0)
    )
    assert part._collated is not None and Subset([1, 2], [0])._collated is None

    class Doubled(TensorDataset):
        def __getitem__(self, i):
            return tuple(t * 2 for t in super().__getitem__(i))

    assert Doubled(lucid.arange(3))._collated is None
    assert next(iter(DataLoader(Doubled(lucid.arange(3)), batch_size=3)))[0].tolist() == [0, 2, 4]
    fast += list(DataLoader(part, batch_size=3, num_workers=workers))
    slow += list(
        DataLoader(
            part,
            batch_size=3,
            num_workers=workers,
            collate_fn=lambda b: lucid.utils.data.default_collate(b),
        )
    )
    assert len(fast) == len(slow) == 6
    for f, s in zip(fast, slow):
        assert type(f) is type(s) is list and len(f) == 3
        for a, b in zip(f, s):
            assert a.dtype is b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(IndexError):
        list(DataLoader(ds, batch_size=2, sampler=[0, 10]))


CONTEXT_SCRIPT = """
import faulthandler
faulthandler.dump_traceback_later(60, exit=True)
import sys
import lucid
from lucid.utils.data import DataLoader, TensorDataset, get_worker_info


class Where(TensorDataset):
    def __getitem__(self, i):
        return (super().__getitem__(i)[0], "__mp_main__" in sys.modules, get_worker_info().id)


if __name__ == "__main__":
    ds = Where(lucid.arange(40000.0).reshape(100, 400))
    for method in ("spawn", "forkserver"):
        x, spawned, ids = next(iter(DataLoader(ds, batch_size=50, num_workers=2,
                                                multiprocessing_context=method)))
        assert all(spawned.tolist()) and set(ids.tolist()) == {0}, method
        assert x.is_shared() and x[1, 0].item() == 400.0
        print(method, "ok")
"""


def test_spawn_and_forkserver_contexts(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "contexts.py"
    script.write_text(CONTEXT_SCRIPT)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, str(script)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["spawn", "ok", "forkserver", "ok"]


def test_a_forked_child_leaves_an_inherited_pool_alone(deadline):
    it = iter(DataLoader(data(), batch_size=2, num_workers=2))
    first = next(it)
    pid = os.fork()
    if pid == 0:  # the child (as a worker of another loader would be)
        it._shutdown()
        os._exit(0 if not it._done.is_set() and not it._closed else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    rest = [b[1].tolist() for b in it]
    assert [first[1].tolist()] + rest == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_worker_seeds_come_from_the_loader_generator(deadline):
    def seeds(seed):
        lucid.manual_seed(seed)  # the default generator must not matter
        loader = DataLoader(
            WorkerSeeds(),
            batch_size=None,
            num_workers=2,
            generator=lucid.Generator().manual_seed(42),
        )
        return sorted({(o[0], o[1]) for o in loader})

    a = seeds(0)
    assert a == seeds(1) and a[1][1] == a[0][1] + 1
    lucid.manual_seed(0)
    other = DataLoader(
        WorkerSeeds(), batch_size=None, num_workers=2, generator=lucid.Generator().manual_seed(43)
    )
    assert sorted({(o[0], o[1]) for o in other}) != a


class BatchFailing(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i

    def __getitems__(self, indices):
        raise LookupError(f"no batch {indices}")


def test_getitems_is_used_and_its_errors_name_the_batch(deadline):
    with pytest.raises(LookupError, match=r"while fetching the batch of indices \[0, 1\]"):
        list(DataLoader(BatchFailing(), batch_size=2, num_workers=1))
    assert list(DataLoader(BatchFailing(), batch_size=None)) == [0, 1, 2, 3]


def test_shared_batches_leak_no_descriptors(deadline):
    from lucid.utils.data import _shared

    def open_fds():
        return len(os.listdir("/proc/self/fd"))

    loader = DataLoader(Big(), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in loader:
        pass
    before = open_fds()
    for _ in range(3):
        for b in loader:
            assert b["t"].shape == (2, 256, 128) and b["t"].is_shared() == _shared.SHARING
    del b
    assert open_fds() <= before
    loader._iterator._shutdown()


class Many(Dataset):
    """A sample of more large tensors than one socket message can pass descriptors for."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return [lucid.full((1 << 14,), float(k)) for k in range(300)]


def test_a_batch_with_hundreds_of_shared_tensors(deadline):
    (batch,) = list(DataLoader(Many(), batch_size=1, num_workers=1))
    assert len(batch) == 300
    assert [t[0, 0].item() for t in batch] == [float(k) for k in range(300)]
