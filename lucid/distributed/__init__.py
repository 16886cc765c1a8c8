"""``lucid.distributed``: process groups and collectives between processes, as
``torch.distributed``.

Two backends stand on existing engines: ``"mpi"`` (mpi4py over an MPI library; CPU
tensors, and CUDA tensors through host memory) and ``"nccl"`` (CuPy's NCCL bindings; CUDA
tensors). Start the processes with ``python -m lucid.distributed.run --nproc-per-node N
script.py``, call :func:`init_process_group` in each, then the collectives;
:class:`lucid.nn.parallel.DistributedDataParallel` builds data-parallel training on them.
"""

from .collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from .group import GroupMember, ProcessGroup, group
from .objects import all_gather_object, broadcast_object_list, gather_object
from .work import ReduceOp, Work
from .world import (
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    new_group,
)

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
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "new_group",
    "group",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "default_pg_timeout",
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "all_to_all",
    "all_to_all_single",
    "send",
    "recv",
    "isend",
    "irecv",
    "barrier",
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
]
