"""CUDA streams and events: ordering work on a GPU and timing it.

A :class:`Stream` is a queue of kernels that runs in order; work on different streams may
overlap. ``with lucid.cuda.stream(s):`` sends every kernel of its block to ``s``. An
:class:`Event` marks a point in a stream: other streams can wait for it, the host can wait
for it, and two timing events give the milliseconds between them.
"""

from __future__ import annotations

from .._device import device as _device_cls
from ..errors import DeviceError
from .devices import _index, _runtime as _rt


class Stream:
    """A CUDA stream on ``device`` (default: current) with ``priority`` (lower runs first;
    0 is the default priority)."""

    def __init__(self, device=None, priority=0, stream_ptr=None):
        rt = _rt("Stream")
        self.device_index = _index(device, "Stream")
        self._cp = (
            rt.new_stream(self.device_index, priority)
            if stream_ptr is None
            else rt.wrap_stream(stream_ptr, self.device_index)
        )

    @classmethod
    def _wrap(cls, cp_stream, index):
        s = cls.__new__(cls)
        s._cp, s.device_index = cp_stream, index
        return s

    @property
    def cuda_stream(self) -> int:
        """The raw ``cudaStream_t`` (for other libraries)."""
        return self._cp.ptr

    @property
    def device(self):
        return _device_cls("cuda", self.device_index)

    def wait_event(self, event) -> None:
        """Make future work on this stream wait until ``event`` has completed."""
        self._cp.wait_event(event._cp)

    def wait_stream(self, stream) -> None:
        """Make future work on this stream wait for all work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one if None) at this point of the stream; returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def query(self) -> bool:
        """Whether all work queued on this stream has completed."""
        return self._cp.done

    def synchronize(self) -> None:
        """Wait on the host until this stream's work has completed."""
        self._cp.synchronize()

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return (
            f"<lucid.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"
        )


class Event:
    """A CUDA event; ``enable_timing=True`` for :meth:`elapsed_time`."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._cp = _rt("Event").new_event(enable_timing, blocking, interprocess)

    def record(self, stream=None) -> None:
        """Mark the current point of ``stream`` (default: the current stream)."""
        self._cp.record(None if stream is None else stream._cp)

    def wait(self, stream=None) -> None:
        """Make ``stream`` (default: current) wait for this event."""
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        return self._cp.done

    def synchronize(self) -> None:
        self._cp.synchronize()

    def elapsed_time(self, end_event) -> float:
        """Milliseconds from this event to ``end_event`` (both recorded and completed)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise DeviceError("Event.elapsed_time: both events need enable_timing=True")
        return _rt("Event").elapsed_ms(self._cp, end_event._cp)

    def __repr__(self):
        return f"<lucid.cuda.Event timing={self.enable_timing}>"


def current_stream(device=None) -> Stream:
    """The stream kernels go to now (the default stream unless inside ``stream(...)``)."""
    rt = _rt("current_stream")
    return Stream._wrap(rt.current_stream(), _index(device, "current_stream"))


def default_stream(device=None) -> Stream:
    rt = _rt("default_stream")
    return Stream._wrap(rt.default_stream(), _index(device, "default_stream"))


class StreamContext:
    """``with StreamContext(s):`` sends the block's kernels to ``s`` (None: no change)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            self.stream._cp.__enter__()
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream._cp.__exit__(*exc)
        return False


def stream(s) -> StreamContext:
    """Context manager selecting stream ``s`` for the kernels of its block."""
    return StreamContext(s)
