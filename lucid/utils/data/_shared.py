"""The channel a DataLoader worker sends its batches on: pickled, with each large CPU tensor
moved through shared memory instead of through the pipe.

The worker copies such a tensor into a fresh anonymous memory file (``memfd_create``) and
pickles a reference in its place (``persistent_id``); the file descriptors follow the
message over the socket (``SCM_RIGHTS``), and the main process maps each one as the new
tensor's storage (``Tensor.is_shared()`` is then true). That is one copy of the data where
pickling through the pipe makes four. Where the platform lacks memfds or descriptor
passing, every tensor is pickled (a tensor pickles as its backend array's bytes).
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
import socket
from multiprocessing import reduction

from ..._tensor import Tensor, from_numpy
from ... import dtypes as _dt
from ...backend import host

MIN_BYTES = 1 << 16  # smaller tensors travel inline: a descriptor costs a few syscalls
FDS_PER_MESSAGE = 250  # the kernel passes at most 253 descriptors in one message
SHARING = hasattr(os, "memfd_create") and getattr(reduction, "HAVE_SEND_HANDLE", False)


class StreamBroken(RuntimeError):
    """A message went out without its descriptors: the channel can't be used again."""


class _Pickler(reduction.ForkingPickler):
    """Pickles large CPU tensors as references to memfds it fills (appended to ``fds``);
    with ``fds=None``, every tensor inline."""

    def __init__(self, file, fds):
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self._fds = fds

    def persistent_id(self, obj):
        if (
            self._fds is None
            or type(obj) is not Tensor
            or obj.device.type != "cpu"
            or obj.nbytes < MIN_BYTES
        ):
            return None
        src = obj.numpy(force=True)
        fd = os.memfd_create("lucid-dataloader", os.MFD_CLOEXEC)
        self._fds.append(fd)
        os.ftruncate(fd, src.nbytes)
        with mmap.mmap(fd, src.nbytes) as mm:
            dst = host.from_buffer(mm, obj.dtype, src.shape)
            dst[...] = src
            del dst
        return len(self._fds) - 1, obj.dtype.name, tuple(src.shape), obj.requires_grad


class _Unpickler(pickle.Unpickler):
    """Maps each tensor reference of the message onto its memfd (of ``fds``)."""

    def __init__(self, file, fds):
        super().__init__(file)
        self._fds = fds

    def persistent_load(self, pid):
        i, dtype, shape, requires_grad = pid
        dt = _dt.as_dtype(dtype)
        count = 1
        for s in shape:
            count *= s
        mm = mmap.mmap(self._fds[i], count * dt.itemsize)
        a = host.from_buffer(memoryview(mm), dt, shape)
        t = from_numpy(a)
        return t.requires_grad_() if requires_grad else t


class Channel:
    """One end of a worker's socket pair: :meth:`send` (worker) and :meth:`recv` (main)."""

    def __init__(self, conn):
        self.conn = conn
        self._sock = (
            socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) if SHARING else None
        )

    def fileno(self):
        return self.conn.fileno()

    def send(self, obj):
        """Pickle ``obj`` and send it, then the descriptors of its shared tensors (in
        groups of at most ``FDS_PER_MESSAGE``); the message starts with their count. A
        failure once the message is out leaves the stream unusable: it is raised as
        :class:`StreamBroken`."""
        fds = []
        try:
            buf = io.BytesIO()
            buf.write(b"\0\0\0\0")
            _Pickler(buf, fds if self._sock is not None else None).dump(obj)
            view = buf.getbuffer()
            view[:4] = len(fds).to_bytes(4, "little")
            self.conn.send_bytes(view)
            del view
            try:
                for i in range(0, len(fds), FDS_PER_MESSAGE):
                    reduction.sendfds(self._sock, fds[i : i + FDS_PER_MESSAGE])
            except OSError as e:
                raise StreamBroken(f"sending shared tensors failed: {e}") from e
        finally:
            for fd in fds:
                os.close(fd)

    def recv(self):
        data = self.conn.recv_bytes()
        n = int.from_bytes(data[:4], "little")
        fds = []
        try:
            while len(fds) < n:
                fds += reduction.recvfds(self._sock, min(FDS_PER_MESSAGE, n - len(fds)))
            return _Unpickler(io.BytesIO(memoryview(data)[4:]), fds).load()
        finally:
            for fd in fds:
                os.close(fd)

    def close(self):
        if self._sock is not None:
            self._sock.close()
        self.conn.close()
