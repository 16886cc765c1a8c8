"""``DataLoader``: batches from a dataset, in the main process or in worker processes.

With ``num_workers > 0`` each worker is a daemonic process (forked on Linux) with its own
task queue and its own result channel (:mod:`._shared`). The main process hands out the
sampler's batches of indices round robin, at most ``prefetch_factor`` per worker ahead, and
yields the results in the sampler's order. It waits on the result pipes and on the workers'
process sentinels together (``multiprocessing.connection.wait``), so a worker that dies is
noticed at once and reported with its exit code or signal, and an exception in a worker is
raised again in the main process with the worker's traceback and the sample index. Results
travel pickled, with each large CPU tensor's data in shared memory (one copy, not four).
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
import weakref

from ..._state import STATE
from ..._tensor import Tensor
from ...ops import randint
from ...errors import ArgumentError
from . import _shared, _worker
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


_live: weakref.WeakSet = weakref.WeakSet()  # the worker pools not yet shut down


@atexit.register
def _shutdown_all():
    """Stop every pool at interpreter exit, before multiprocessing's own exit handler
    (registered earlier, so run later) terminates and joins the daemonic workers."""
    for it in list(_live):
        it._shutdown()


class _InfiniteConstantSampler(Sampler):
    """None forever: the "indices" of an iterable dataset."""

    def __iter__(self):
        while True:
            yield None


def _pin(data):
    """``data`` with every tensor in page-locked memory (``Tensor.pin_memory``)."""
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, dict):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(v) for v in data)
    return data


class DataLoader:
    """Iterate over ``dataset`` in batches, as ``torch.utils.data.DataLoader``.

    ``batch_size=None`` disables batching (each sample goes through ``collate_fn``, by
    default :func:`default_convert`); otherwise batches of ``batch_size`` indices from
    ``sampler`` (default: :class:`RandomSampler` with ``shuffle``, drawing from
    ``generator``, else :class:`SequentialSampler`) go through ``collate_fn`` (default
    :func:`default_collate`); ``drop_last`` drops a short last batch. ``batch_sampler``
    replaces ``batch_size``/``shuffle``/``sampler``/``drop_last``. ``num_workers`` worker
    processes load in parallel; worker ``i`` seeds its generators with ``base_seed + i``
    (``base_seed`` drawn from ``generator`` or the default generator for each epoch), then
    calls ``worker_init_fn(i)``. ``timeout`` (seconds, 0 = none) bounds the wait for one
    batch; ``persistent_workers`` keeps the workers between epochs; ``in_order=False``
    yields batches as they arrive. ``pin_memory`` pins each batch (a no-op on a CPU-only
    build: ``Tensor.pin_memory`` returns the tensor)."""

    _frozen = (
        "batch_size",
        "batch_sampler",
        "sampler",
        "drop_last",
        "dataset",
        "persistent_workers",
    )

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ArgumentError(
                "DataLoader: num_workers option should be non-negative; use "
                f"num_workers=0 to disable multiprocessing, got {num_workers!r}"
            )
        if timeout < 0:
            raise ArgumentError(
                f"DataLoader: timeout option should be non-negative, got {timeout!r}"
            )
        if num_workers == 0 and prefetch_factor is not None:
            raise ArgumentError(
                "DataLoader: prefetch_factor option could only be specified "
                "in multiprocessing; let num_workers > 0 to enable it"
            )
        if prefetch_factor is not None and (
            not isinstance(prefetch_factor, int) or prefetch_factor < 1
        ):
            raise ArgumentError(
                f"DataLoader: prefetch_factor option should be a positive "
                f"int, got {prefetch_factor!r}"
            )
        if persistent_workers and num_workers == 0:
            raise ArgumentError("DataLoader: persistent_workers option needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (None, False):
                raise ArgumentError(
                    f"DataLoader with IterableDataset: expected unspecified "
                    f"shuffle option, but got shuffle={shuffle!r}"
                )
            if sampler is not None:
                raise ArgumentError(
                    f"DataLoader with IterableDataset: expected unspecified "
                    f"sampler option, but got sampler={sampler!r}"
                )
            if batch_sampler is not None:
                raise ArgumentError(
                    f"DataLoader with IterableDataset: expected unspecified "
                    f"batch_sampler option, but got "
                    f"batch_sampler={batch_sampler!r}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ArgumentError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ArgumentError(
                    "DataLoader: batch_sampler option is mutually exclusive "
                    "with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ArgumentError(
                "DataLoader: batch_size=None option disables auto-batching "
                "and is mutually exclusive with drop_last"
            )
        if sampler is None:
            sampler = (
                _InfiniteConstantSampler()
                if iterable
                else RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if multiprocessing_context is not None:
            if num_workers == 0:
                raise ArgumentError(
                    "DataLoader: multiprocessing_context can only be used "
                    "with multi-process loading (num_workers > 0)"
                )
            if isinstance(multiprocessing_context, str):
                multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
        d = self.__dict__
        d.update(
            dataset=dataset,
            batch_size=batch_size,
            sampler=sampler,
            batch_sampler=batch_sampler,
            drop_last=drop_last,
            generator=generator,
            num_workers=num_workers,
            pin_memory=bool(pin_memory),
            pin_memory_device=pin_memory_device,
            timeout=timeout,
            worker_init_fn=worker_init_fn,
            in_order=bool(in_order),
            multiprocessing_context=multiprocessing_context,
            prefetch_factor=(2 if prefetch_factor is None and num_workers else prefetch_factor),
            persistent_workers=bool(persistent_workers),
            _iterable=iterable,
            _iterator=None,
        )
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __setattr__(self, name, value):
        if name in self._frozen:
            raise ArgumentError(
                f"DataLoader: {name} attribute should not be set after DataLoader is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _context(self):
        if self.multiprocessing_context is not None:
            return self.multiprocessing_context
        if "fork" in multiprocessing.get_all_start_methods():
            return multiprocessing.get_context("fork")
        return multiprocessing.get_context()

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None or self._iterator._closed:
                self.__dict__["_iterator"] = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __del__(self):
        it = self.__dict__.get("_iterator")
        if it is not None:
            it._shutdown()


class _BaseIter:
    """One pass over a loader: its sampler iterator and the epoch's base seed."""

    def __init__(self, loader):
        self._loader = loader
        self._pin = loader.pin_memory
        self._reset(loader, first=True)

    def _reset(self, loader, first=False):
        self._sampler_iter = iter(loader._index_sampler)
        self._base_seed = randint(0, 1 << 62, (), generator=loader.generator).item()

    def __iter__(self):
        return self

    def __next__(self):
        prof = STATE.profiler
        if prof is None:
            return self._next()
        name = f"enumerate(DataLoader)#{type(self).__name__}.__next__"
        return prof.call(name, "annotation", None, self._next)

    def __len__(self):
        return len(self._loader)


class _SingleProcessIter(_BaseIter):
    """Fetch and collate in the calling process (``num_workers=0``)."""

    def _reset(self, loader, first=False):
        super()._reset(loader, first)
        self._fetcher = _worker.make_fetcher(
            loader._iterable,
            loader.dataset,
            loader._auto_collation,
            loader.collate_fn,
            loader.drop_last,
        )

    def _next(self):
        data = self._fetcher.fetch(next(self._sampler_iter))
        return _pin(data) if self._pin else data


class _MultiProcessIter(_BaseIter):
    """Workers, their queues and pipes, and the bookkeeping of tasks in flight: ``_tasks``
    maps a task index to its worker, ``_ready`` holds results that came early."""

    def __init__(self, loader):
        n = self._num_workers = loader.num_workers
        ctx = loader._context()
        self._prefetch = loader.prefetch_factor
        self._in_order = loader.in_order
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._closed = False
        self._pid = os.getpid()
        self._done = ctx.Event()
        self._index_queues, self._conns, self._workers = [], [], []
        self._stopped = [False] * n
        _live.add(self)
        super().__init__(loader)  # the sampler iterator and the base seed
        try:
            for w in range(n):
                q = ctx.Queue()
                q.cancel_join_thread()
                reader, writer = ctx.Pipe(duplex=_shared.SHARING)  # a socket pair
                reader, writer = _shared.Channel(reader), _shared.Channel(writer)
                p = ctx.Process(
                    target=_worker.worker_loop,
                    daemon=True,
                    args=(
                        loader._iterable,
                        loader.dataset,
                        q,
                        writer,
                        self._done,
                        loader._auto_collation,
                        loader.collate_fn,
                        loader.drop_last,
                        self._base_seed,
                        loader.worker_init_fn,
                        w,
                        n,
                    ),
                )
                p.start()
                writer.close()
                self._index_queues.append(q)
                self._conns.append(reader)
                self._workers.append(p)
        except BaseException:
            self._shutdown()
            raise
        self._start_epoch()

    def _reset(self, loader, first=False):
        super()._reset(loader, first)
        if not first:  # a persistent iterator's next epoch: restart the workers
            for q in self._index_queues:
                q.put(_worker._RESUME)
            acks = 0
            while acks < self._num_workers:
                w, (idx, _) = self._receive()
                acks += idx == _worker._RESUME
            self._start_epoch()

    def _start_epoch(self):
        self._tasks, self._ready = {}, {}
        self._send_idx = self._rcvd_idx = 0
        self._active = [True] * self._num_workers
        self._cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch * self._num_workers):
            if not self._put_task():
                break

    def _put_task(self):
        """Send the sampler's next batch of indices to the next active worker; False when
        there is no active worker or no batch left."""
        for _ in range(self._num_workers):
            w = next(self._cycle)
            if self._active[w]:
                break
        else:
            return False
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return False
        self._index_queues[w].put((self._send_idx, index))
        self._tasks[self._send_idx] = w
        self._send_idx += 1
        return True

    def _next(self):
        while True:
            if self._in_order:
                while (
                    self._rcvd_idx < self._send_idx
                    and self._rcvd_idx not in self._tasks
                    and self._rcvd_idx not in self._ready
                ):
                    self._rcvd_idx += 1  # a task of a worker whose stream ended
                if self._rcvd_idx in self._ready:
                    data = self._ready.pop(self._rcvd_idx)
                    self._rcvd_idx += 1
                    return self._deliver(data)
            elif self._ready:
                return self._deliver(self._ready.pop(next(iter(self._ready))))
            if not self._tasks:
                if not self._persistent:
                    self._shutdown()
                raise StopIteration
            w, (idx, data) = self._receive()
            if self._tasks.pop(idx, None) is None:
                continue  # not a task of this epoch
            if isinstance(data, _worker.IterableEnd):
                self._end_worker(w)
                self._put_task()
                continue
            self._ready[idx] = data

    def _deliver(self, data):
        self._put_task()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return _pin(data) if self._pin else data

    def _end_worker(self, w):
        """Worker ``w``'s iterable is exhausted: give it no more tasks (and, unless the
        workers persist, let it exit)."""
        self._active[w] = False
        for idx in [i for i, v in self._tasks.items() if v == w]:
            del self._tasks[idx]  # its later tasks can only report the end too
        if not self._persistent:
            self._stopped[w] = True
            self._index_queues[w].put(None)

    def _receive(self):
        """``(worker, message)`` from the first worker that sends one, raising if a worker
        died or ``timeout`` seconds pass without a message."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            waiting = [c for c, s in zip(self._conns, self._stopped) if not s]
            watch = waiting + [p.sentinel for p, s in zip(self._workers, self._stopped) if not s]
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(watch, left)
            for c in ready:
                if c in waiting:
                    w = self._conns.index(c)
                    try:
                        return w, c.recv()
                    except (EOFError, OSError):
                        self._worker_died(w)
            if ready:
                for w, p in enumerate(self._workers):
                    if not self._stopped[w] and p.sentinel in ready:
                        self._worker_died(w)
            elif deadline is not None:
                self._shutdown()
                raise RuntimeError(
                    f"DataLoader timed out after {self._timeout} seconds "
                    "waiting for a batch from its workers"
                )

    def _worker_died(self, w):
        p = self._workers[w]
        p.join(_worker.POLL_S)
        code = p.exitcode
        self._shutdown()
        if code is not None and code < 0:
            try:
                how = f"was killed by signal {signal.Signals(-code).name} ({-code})"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited unexpectedly with exit code {code}"
        raise RuntimeError(
            f"DataLoader worker {w} (pid {p.pid}) {how}; see the worker's "
            "output above for its own error, if it printed one"
        )

    def _shutdown(self):
        """Stop the workers (send None, then terminate what has not exited) and close the
        queues and channels. Nothing in a forked child that inherited this object: its
        queue locks may have been copied while held, and the workers are not its own."""
        if self.__dict__.get("_closed", True) or os.getpid() != self._pid:
            return
        self._closed = True
        self._done.set()
        for w, q in enumerate(self._index_queues):
            if not self._stopped[w]:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
        for p in self._workers:
            p.join(_worker.POLL_S * 2)
            if p.is_alive():
                p.terminate()
                p.join()
        for q in self._index_queues:
            q.close()
        for c in self._conns:
            c.close()

    def __del__(self):
        self._shutdown()
