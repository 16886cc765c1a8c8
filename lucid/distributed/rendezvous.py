"""Rendezvous: rank 0 hands a few bytes (NCCL's unique id) to the other ranks before any
communicator exists — over MPI when the processes were started by ``mpiexec``, else over
one TCP connection per peer to ``MASTER_ADDR:MASTER_PORT`` where rank 0 listens. Only the
id travels this way; tensors never do.
"""

from __future__ import annotations

import os
import socket
import struct
import time

from ..errors import ArgumentError, DistributedError, DistributedTimeoutError
from .mpi import load_mpi

__all__ = ["share", "launched_by_mpi"]


def launched_by_mpi() -> bool:
    """Whether this process was started by an MPI launcher (Open MPI, MPICH, Slurm PMI)."""
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def share(payload, rank, world_size, timeout, addr=None, port=None):
    """Rank 0's ``payload`` (bytes; ignored elsewhere) on every rank."""
    if world_size == 1:
        return payload
    if launched_by_mpi():
        return load_mpi("init_process_group").COMM_WORLD.bcast(payload, root=0)
    addr = addr or os.environ.get("MASTER_ADDR")
    port = port or os.environ.get("MASTER_PORT")
    if not addr or not port:
        raise DistributedError(
            "init_process_group: MASTER_ADDR and MASTER_PORT must be set "
            "(or an init_method 'tcp://host:port' given) for the ranks to "
            "meet; python -m lucid.distributed.run sets them"
        )
    deadline = time.monotonic() + timeout
    if rank == 0:
        return _serve(payload, world_size - 1, addr, int(port), deadline)
    return _fetch(addr, int(port), deadline, rank)


def _serve(payload, peers, addr, port, deadline):
    host = "" if addr in ("localhost", "127.0.0.1", "0.0.0.0") else addr
    with socket.create_server((host, port), reuse_port=False) as srv:
        for _ in range(peers):
            srv.settimeout(max(deadline - time.monotonic(), 1e-3))
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                raise DistributedTimeoutError(
                    f"init_process_group: rank 0 waited at {addr}:{port} past the timeout "
                    f"for {peers} peers to connect"
                ) from None
            with conn:
                conn.sendall(struct.pack("!I", len(payload)) + payload)
    return payload


def _fetch(addr, port, deadline, rank):
    while True:
        try:
            with socket.create_connection((addr, port), timeout=5) as conn:
                n = struct.unpack("!I", _read(conn, 4))[0]
                return _read(conn, n)
        except (ConnectionRefusedError, socket.timeout, OSError) as e:
            if time.monotonic() > deadline:
                raise DistributedTimeoutError(
                    f"init_process_group: rank {rank} could not reach rank 0 at "
                    f"{addr}:{port} within the timeout ({e})"
                ) from None
            time.sleep(0.05)


def _read(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("rendezvous: connection closed early")
        data += chunk
    return data


def env_int(names, op, default=None):
    """The first of environment variables ``names`` that is set, as an int."""
    for n in names:
        v = os.environ.get(n)
        if v is not None:
            try:
                return int(v)
            except ValueError:
                raise ArgumentError(
                    f"{op}: environment variable {n}={v!r} is not an integer"
                ) from None
    return default
