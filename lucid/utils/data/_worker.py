"""What runs in a DataLoader worker process: the fetchers (indices -> a collated batch), the
worker loop, :func:`get_worker_info`, and the wrapper that carries a worker's exception,
with its traceback text and the failing sample index, to the main process.

The protocol: the main process puts ``(task_idx, indices)`` on a worker's own index queue
(``_RESUME`` to start a new epoch of a persistent worker, ``None`` to stop); the worker puts
``(task_idx, batch)`` on its own result channel (:mod:`._shared`), where ``batch`` may be an
:class:`ExceptionWrapper` or, for an iterable dataset that ran out, :class:`IterableEnd`.
"""

from __future__ import annotations

import multiprocessing
import queue
import random
import sys
import traceback

from ...random import manual_seed
from ._shared import StreamBroken
from .collate import default_collate

__all__ = ["WorkerInfo", "get_worker_info"]

POLL_S = 0.25  # how often a blocked worker or the main process checks on the other
_RESUME = "resume"  # index-queue message: restart the iterable's stream (a new epoch)


class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``seed`` (the
    seed its ``lucid``, ``random`` and, when loaded, NumPy generators got) and its copy of
    the ``dataset``. Read-only."""

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id, num_workers, seed, dataset):
        for k, v in (
            ("id", id),
            ("num_workers", num_workers),
            ("seed", seed),
            ("dataset", dataset),
        ):
            object.__setattr__(self, k, v)

    def __setattr__(self, key, value):
        raise AttributeError(f"WorkerInfo: can't set attribute {key!r}; it is read-only")

    def __repr__(self):
        return (
            f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
            f"dataset={type(self.dataset).__name__})"
        )


_info = None


def get_worker_info():
    """The :class:`WorkerInfo` of this DataLoader worker process; None in the main
    process (or with ``num_workers=0``)."""
    return _info


class IterableEnd:
    """Result of a worker whose iterable dataset is exhausted for this epoch."""

    __slots__ = ("worker_id",)

    def __init__(self, worker_id):
        self.worker_id = worker_id


class ExceptionWrapper:
    """An exception raised in a worker, as its type and a message holding where it
    happened and the worker's formatted traceback; :meth:`reraise` raises it again."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.msg = (
            f"Caught {exc_type.__name__} {where}.\nOriginal "
            f"{''.join(traceback.format_exception(exc_type, exc, exc.__traceback__))}"
        )

    def __reduce__(self):
        # a type defined where the main process can't import it travels as RuntimeError
        import pickle

        try:
            pickle.dumps(self.exc_type)
            exc_type = self.exc_type
        except Exception:
            exc_type = RuntimeError
        return _rebuild_wrapper, (exc_type, self.msg)

    def reraise(self):
        if self.exc_type is KeyError:  # KeyError's str() would quote the whole message
            raise KeyError(_Message(self.msg))
        try:
            exc = self.exc_type(self.msg)
        except Exception:
            raise RuntimeError(self.msg) from None
        raise exc


class _Message(str):
    def __repr__(self):
        return str(self)


def _rebuild_wrapper(exc_type, msg):
    w = ExceptionWrapper.__new__(ExceptionWrapper)
    w.exc_type, w.msg = exc_type, msg
    return w


class MapFetcher:
    """Fetch and collate the samples of a map-style dataset; ``where()`` says which sample
    or step was being worked on, for an error message (formatted only then)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto, self.collate_fn = dataset, auto_collation, collate_fn
        self.getitems = getattr(dataset, "__getitems__", None) if auto_collation else None
        self.collated = (
            getattr(dataset, "_collated", None)
            if auto_collation and collate_fn is default_collate
            else None
        )
        self._stage = self._index = self._sample = None

    def fetch(self, index):
        self._index = self._sample = index
        if self.collated is not None:
            self._stage = "batch"
            return self.collated(index)
        if not self.auto:
            self._stage = "sample"
            data = self.dataset[index]
        elif self.getitems is not None:
            self._stage = "batch"
            data = self.getitems(index)
        else:
            self._stage = "sample"
            data = []
            for i in index:
                self._sample = i
                data.append(self.dataset[i])
        self._stage = "collate"
        return self.collate_fn(data)

    def where(self):
        if self._stage == "collate":
            return f"while collating the batch of indices {self._index!r}"
        if self._stage == "batch":
            return f"while fetching the batch of indices {self._index!r}"
        if self.auto:
            return f"while fetching sample index {self._sample!r} (batch indices {self._index!r})"
        return f"while fetching sample index {self._sample!r}"


class IterFetcher:
    """Draw ``len(index)`` samples (one without auto-collation) from an iterable dataset's
    iterator; StopIteration once it is exhausted (or when a short last batch is dropped)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.auto, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self._it = iter(dataset)
        self._ended = False
        self._at = None

    def fetch(self, index):
        if self._ended:
            raise StopIteration
        self._at = "while fetching from the IterableDataset"
        if not self.auto:
            data = next(self._it)
        else:
            data = []
            for _ in index:
                try:
                    data.append(next(self._it))
                except StopIteration:
                    self._ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        self._at = "while collating a batch from the IterableDataset"
        return self.collate_fn(data)

    def where(self):
        return self._at or "in the fetcher"


def make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    cls = IterFetcher if iterable else MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def seed_worker(seed):
    """Seed this process's generators: lucid's, Python's ``random`` and, when NumPy has
    been imported, its legacy global one (whose seeds are 32-bit)."""
    random.seed(seed)
    manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (1 << 32))


def _send(conn, msg, worker_id):
    """Send ``msg`` to the main process on channel ``conn``; a batch that can't be pickled
    is sent as the error that says so. False when the main process is gone."""
    try:
        conn.send(msg)
    except StreamBroken:
        raise  # the worker exits with its traceback on stderr
    except (BrokenPipeError, ConnectionResetError):
        return False
    except Exception:
        conn.send(
            (
                msg[0],
                ExceptionWrapper(
                    f"in DataLoader worker process {worker_id} "
                    "while sending the batch to the main process"
                ),
            )
        )
    return True


def worker_loop(*args):
    """The body of a worker process (:func:`_serve`); Ctrl-C, which reaches the whole
    process group, is the main process's to handle, so a worker exits on it silently."""
    try:
        _serve(*args)
    except KeyboardInterrupt:
        pass


def _serve(
    iterable,
    dataset,
    index_queue,
    result_conn,
    done_event,
    auto_collation,
    collate_fn,
    drop_last,
    base_seed,
    init_fn,
    worker_id,
    num_workers,
):
    """Serve tasks from ``index_queue``, sending results on this worker's channel
    ``result_conn`` (:class:`~._shared.Channel`), until told to stop, the main process
    sets ``done_event``, or the main process is gone."""
    global _info
    parent = multiprocessing.parent_process()  # the loader's process, whatever the method
    seed = base_seed + worker_id
    seed_worker(seed)
    _info = WorkerInfo(worker_id, num_workers, seed, dataset)
    init_error = fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(
            f"in DataLoader worker process {worker_id} (in "
            "worker_init_fn or while starting the iterator)"
        )
    ended = False
    while True:
        try:
            task = index_queue.get(timeout=POLL_S)
        except queue.Empty:
            if done_event.is_set() or not parent.is_alive():
                break
            continue
        if task is None:
            break
        if task == _RESUME:
            try:
                fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
            except Exception:
                init_error = ExceptionWrapper(
                    f"in DataLoader worker process {worker_id} while restarting the iterator"
                )
            ended = False
            if not _send(result_conn, (_RESUME, worker_id), worker_id):
                break
            continue
        if done_event.is_set():
            continue
        idx, index = task
        if init_error is not None:
            data = init_error
        elif ended:
            data = IterableEnd(worker_id)
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                data, ended = IterableEnd(worker_id), True
            except Exception:
                data = ExceptionWrapper(
                    f"in DataLoader worker process {worker_id} {fetcher.where()}"
                )
        if not _send(result_conn, (idx, data), worker_id):
            break
        del data
    result_conn.close()
