"""What the benchmarks share: timing that synchronises the GPU, peak memory, freeing memory
between runs, a failure kept to its row, fixed-width tables and the JSON of the results.

Lucid and PyTorch spell the GPU calls alike (``lib.cuda.synchronize()``,
``lib.cuda.max_memory_allocated()``, ...), so each helper takes ``lib`` (either module).
"""

from __future__ import annotations

import contextlib
import gc
import json
import statistics
import sys
import time
import traceback


def on_gpu(device):
    return str(device).startswith("cuda")


def require_gpu(*libs):
    """Exit with a message unless every library in ``libs`` reaches a CUDA device."""
    for lib in libs:
        cuda = getattr(lib, "cuda", None)
        if cuda is None or not cuda.is_available():
            sys.exit(
                f"{lib.__name__} sees no CUDA device (needed: a GPU, a CUDA build of "
                "torch, and CuPy for Lucid: pip install -e '.[cuda12]' or '.[cuda13]')"
            )


def syncer(lib, device):
    """A function that waits for the device's queued work (nothing to wait for on the CPU)."""
    return lib.cuda.synchronize if on_gpu(device) else (lambda: None)


def ms_per_call(fn, sync, calls, repeats, warmup):
    """Median over ``repeats`` of the wall time of ``calls`` calls of ``fn``, in ms per call,
    after ``warmup`` calls; ``sync`` runs before the clock starts and before it stops, so
    the time is that of the device's work, not of queueing it."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        times.append((time.perf_counter() - t) / calls * 1e3)
    return statistics.median(times)


def interleaved_ms(fns, syncs, calls, repeats, warmup):
    """For each function of ``fns`` (with its ``syncs``), the best over ``repeats`` of the
    wall time of ``calls`` calls, in ms per call, after ``warmup`` calls each. The
    functions take turns within every repeat, so load on a shared host that comes and
    goes falls on all of them alike, and the best repeat is the least disturbed one."""
    for fn, sync in zip(fns, syncs):
        for _ in range(warmup):
            fn()
        sync()
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, (fn, sync) in enumerate(zip(fns, syncs)):
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            best[i] = min(best[i], (time.perf_counter() - t) / calls * 1e3)
    return best


def add_gc_option(parser):
    """The benchmarks' ``--gc-every N`` (see :func:`time_steps`)."""
    parser.add_argument(
        "--gc-every",
        type=int,
        default=0,
        metavar="N",
        help="automatic garbage collection off while timing, a collection "
        "of the young generations every N steps of each library "
        "instead (default 0: Python's automatic collection)",
    )


def time_steps(fns, syncs, device, calls, repeats, warmup, gc_every=0):
    """ms per call of each function of ``fns``: in turns on the GPU
    (:func:`interleaved_ms`, the best turn each), one after the other on the CPU (the
    median of each one's repeats: there BLAS threads keep spinning for a while after a
    NumPy call and would take the cores from the next library's turn). With ``gc_every``,
    Python's automatic garbage collection is off while timing and each function is followed
    by a collection of the young generations every ``gc_every`` of its calls
    (``lucid.utils.GarbageCollection``, the schedule large training stacks use)."""
    if gc_every:
        from lucid.utils import GarbageCollection

        scheds = [GarbageCollection(gc_every) for _ in fns]
        fns = [(lambda f=f, s=s: (f(), s.step())[0]) for f, s in zip(fns, scheds)]
        with contextlib.ExitStack() as stack:
            for s in scheds:
                stack.enter_context(s)
            return time_steps(fns, syncs, device, calls, repeats, warmup)
    if on_gpu(device):
        return interleaved_ms(fns, syncs, calls, repeats, warmup)
    return [ms_per_call(f, s, calls, repeats, warmup) for f, s in zip(fns, syncs)]


def reset_peak(lib, device):
    if on_gpu(device):
        lib.cuda.reset_peak_memory_stats()


def peak_bytes(lib, device):
    """``max_memory_allocated`` since the last :func:`reset_peak` (None on the CPU)."""
    return lib.cuda.max_memory_allocated() if on_gpu(device) else None


def free(lib, device):
    """Collect what the last run left and hand the allocator's cached blocks back."""
    gc.collect()
    if on_gpu(device):
        lib.cuda.empty_cache()


def guarded(label, fn, *args):
    """``fn(*args)``, or None after printing why it failed (the last frames only), so one
    failing run leaves the others' rows."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 (a benchmark reports every failure and goes on)
        frames = "".join(traceback.format_exception(e, limit=-3))
        print(f"!! {label} failed:\n{frames[-1500:]}", flush=True)
        return None


def ratio(a, b):
    return None if a is None or b is None else a / b


def scaled(v, k):
    return None if v is None else v * k


class Table:
    """A fixed-width table printed a row at a time (flushed, so a long run shows progress).

    ``columns`` are ``(header, width, template)``: a cell is ``template.format(value)``
    right-aligned in ``width`` (the first column left-aligned); None prints ``n/a``.
    """

    def __init__(self, *columns):
        self.columns = columns
        print(self._line(h for h, _, _ in columns), flush=True)

    def _line(self, cells):
        out = []
        for i, (cell, (_, width, _)) in enumerate(zip(cells, self.columns)):
            out.append(cell.ljust(width) if i == 0 else cell.rjust(width))
        return "".join(out)

    def row(self, *values):
        print(
            self._line(
                "n/a" if v is None else template.format(v)
                for v, (_, _, template) in zip(values, self.columns)
            ),
            flush=True,
        )


def write_json(path, args, results):
    """Write ``{"args": vars(args), "results": results}`` to ``path`` (if given)."""
    if path:
        with open(path, "w") as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1)
        print(f"results written to {path}")
