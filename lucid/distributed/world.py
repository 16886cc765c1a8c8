"""The default process group: :func:`init_process_group` and what asks about it.

Ranks and the world size come from the launcher: under ``mpiexec`` (``python -m
lucid.distributed.run``) from MPI itself; for ``"nccl"`` started as separate processes,
from ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and ``MASTER_ADDR``/``MASTER_PORT`` (where
rank 0 hands NCCL's unique id to the others), as ``torchrun`` sets them.
"""

from __future__ import annotations

import datetime
import warnings

from ..errors import ArgumentError, DistributedError
from .group import GroupMember, group
from .work import _seconds
from .nccl import NCCLGroup
from .mpi import MPIGroup
from ..backend import nccl

__all__ = [
    "init_process_group",
    "destroy_process_group",
    "is_initialized",
    "is_available",
    "is_mpi_available",
    "is_nccl_available",
    "get_rank",
    "get_world_size",
    "get_backend",
    "new_group",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "default_pg_timeout",
    "resolve",
]

default_pg_timeout = datetime.timedelta(minutes=30)
_GROUPS: list = []


def is_available() -> bool:
    """Whether ``lucid.distributed`` is usable in this build (always: the backends need
    their libraries only when a process group is made)."""
    return True


def is_mpi_available() -> bool:
    """Whether mpi4py imports (without initialising MPI)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_nccl_available() -> bool:
    """Whether CuPy's NCCL bindings load on this machine."""
    return nccl.available()


def is_initialized() -> bool:
    """Whether :func:`init_process_group` has made the default group."""
    return group.WORLD is not None


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Make the default process group of ``backend``: ``"mpi"`` (CPU tensors, and CUDA
    tensors through host memory; the ranks are MPI's) or ``"nccl"`` (CUDA tensors; ranks
    from ``rank``/``world_size`` or the environment). ``timeout`` (a ``timedelta`` or
    seconds; 30 minutes by default) bounds every wait for a collective: past it the
    operation raises :class:`~lucid.errors.DistributedTimeoutError`. ``init_method``
    (``"tcp://host:port"``) replaces MASTER_ADDR/PORT for ``"nccl"``; MPI meets by
    itself. ``device_id`` picks the GPU of ``"nccl"`` (default ``cuda:LOCAL_RANK``).
    ``store``, ``group_name`` and ``pg_options`` are accepted for PyTorch compatibility
    and unused."""
    if is_initialized():
        raise DistributedError(
            "init_process_group: the default process group is already "
            "initialized; call destroy_process_group() first"
        )
    if backend is None:
        backend = "mpi"
    backend = str(backend).lower()
    limit = _seconds(default_pg_timeout if timeout is None else timeout)
    if backend == "mpi":
        pg = MPIGroup.world(limit)
        for name, want, got in (("world_size", world_size, pg.size), ("rank", rank, pg.rank)):
            if want not in (-1, None) and want != got:
                raise DistributedError(
                    f"init_process_group: {name}={want} given, but MPI "
                    f"launched this process with {name} {got}"
                )
    elif backend == "nccl":
        pg = NCCLGroup.world(limit, rank, world_size, init_method, device_id)
    else:
        raise ArgumentError(
            f"init_process_group: unknown backend {backend!r}, expected 'mpi' or 'nccl'"
        )
    group.WORLD = pg
    _GROUPS.append(pg)


def destroy_process_group(group_=None):
    """Release ``group_`` (default: every group, the default one included)."""
    targets = list(_GROUPS) if group_ is None or group_ is group.WORLD else [group_]
    for pg in targets:
        pg.destroy()
        if pg in _GROUPS:
            _GROUPS.remove(pg)
    if group_ is None or group_ is group.WORLD:
        group.WORLD = None


def resolve(g, op):
    """The ProcessGroup meant by ``g`` (None: the default); None when this rank is not in
    it (the collective then does nothing, as PyTorch's, with a warning)."""
    if group.WORLD is None:
        raise DistributedError(
            f"{op}: the default process group has not been initialized; "
            "call lucid.distributed.init_process_group() first"
        )
    if g is None:
        return group.WORLD
    if g is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(
            f"{op}: rank {group.WORLD.rank} is not in the given group; nothing done", stacklevel=3
        )
        return None
    if g not in _GROUPS:
        raise DistributedError(
            f"{op}: {g!r} is not a live process group (destroyed, or not made by new_group)"
        )
    return g


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (default: the world); -1 outside the group."""
    pg = resolve(group, "get_rank") if group is not GroupMember.NON_GROUP_MEMBER else None
    return -1 if pg is None else pg.rank


def get_world_size(group=None) -> int:
    """The number of ranks in ``group`` (default: the world); -1 outside the group."""
    pg = resolve(group, "get_world_size") if group is not GroupMember.NON_GROUP_MEMBER else None
    return -1 if pg is None else pg.size


def get_backend(group=None) -> str:
    """``"mpi"`` or ``"nccl"``."""
    return resolve(group, "get_backend").name


def get_process_group_ranks(group):
    """The global ranks of ``group``, in group-rank order."""
    return list(resolve(group, "get_process_group_ranks").ranks)


def get_global_rank(group, group_rank) -> int:
    """The global rank of ``group_rank`` of ``group``."""
    ranks = resolve(group, "get_global_rank").ranks
    if not 0 <= group_rank < len(ranks):
        raise ArgumentError(
            f"get_global_rank: group rank {group_rank} is not in a group of {len(ranks)} ranks"
        )
    return ranks[group_rank]


def get_group_rank(group, global_rank) -> int:
    """The rank within ``group`` of global rank ``global_rank``."""
    return group_rank_of(resolve(group, "get_group_rank"), global_rank, "get_group_rank")


def group_rank_of(pg, global_rank, op):
    if global_rank not in pg.ranks:
        raise ArgumentError(
            f"{op}: global rank {global_rank} is not part of the process "
            f"group of ranks {list(pg.ranks)}"
        )
    return pg.ranks.index(global_rank)


def new_group(
    ranks=None,
    timeout=None,
    backend=None,
    pg_options=None,
    use_local_synchronization=False,
    group_desc=None,
):
    """A process group of the global ``ranks`` (default: all) on the default group's
    backend. Every rank of the world must call it, in the same order as its other
    collectives; ranks outside ``ranks`` get ``GroupMember.NON_GROUP_MEMBER``.
    ``pg_options``, ``use_local_synchronization`` and ``group_desc`` are accepted for
    PyTorch compatibility and unused."""
    world = resolve(None, "new_group")
    ranks = sorted(range(world.size) if ranks is None else {int(r) for r in ranks})
    bad = [r for r in ranks if not 0 <= r < world.size]
    if bad or not ranks:
        raise ArgumentError(
            f"new_group: ranks {bad or ranks} are not ranks of a world of {world.size}"
        )
    if backend is not None and str(backend).lower() != world.name:
        raise ArgumentError(
            f"new_group: backend {backend!r} differs from the default group's {world.name!r}"
        )
    pg = world.split(ranks, world.timeout if timeout is None else _seconds(timeout))
    if pg is None:
        return GroupMember.NON_GROUP_MEMBER
    _GROUPS.append(pg)
    return pg
