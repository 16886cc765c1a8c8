"""lucid.distributed on the GPU: the ``"nccl"`` backend with one rank (every collective,
async handles, SyncBatchNorm and DDP training on CUDA tensors), and two MPI ranks sharing
one GPU (the ``"mpi"`` backend on CUDA tensors: every collective, DDP of the MLP and of the
CNN with SyncBatchNorm against one process on the global batch, no_sync).

The checks are those of tests/distributed/worker.py, run through the launcher with
``WORKER_DEVICE=cuda``; NCCL cannot put two ranks on one GPU, hence MPI for the two-rank
run. Skipped without a GPU (and without CuPy's NCCL for the first test)."""

import pytest

import lucid
import lucid.distributed as dist

from ..distributed.launch import launch
from .conftest import DEVICE

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(DEVICE == "cpu", reason="needs a GPU (CUDA tensors)"),
]

COLLECTIVES = [
    "all_reduce",
    "complex",
    "async",
    "broadcast",
    "views_and_scalars",
    "reduce",
    "all_gather",
    "reduce_scatter",
    "gather_scatter",
    "all_to_all",
    "objects",
    "errors",
    "sampler",
    "syncbn_grad",
]
DDP = [
    "ddp_mlp",
    "ddp_gpt",
    "ddp_mlp_small_buckets",
    "ddp_overlap",
    "ddp_bucket_view",
    "ddp_cnn_syncbn",
    "ddp_no_sync",
    "ddp_unused",
    "ddp_stall_error",
]


def _check(proc, results, n, checks):
    assert sorted(results) == list(range(n)), proc.stderr[-4000:]
    bad = [
        f"rank {r}, {c}: {res[c]}" for r, res in results.items() for c in checks if res[c] != "ok"
    ]
    assert not bad, "\n".join(bad)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.skipif(not dist.is_nccl_available(), reason="CuPy without NCCL")
def test_nccl_one_rank_every_collective_and_ddp(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKER_BACKEND", "nccl")
    monkeypatch.setenv("WORKER_DEVICE", DEVICE)
    checks = COLLECTIVES + ["nccl_needs_cuda_tensors"] + DDP
    proc, results = launch(1, checks, tmp_path, launcher=["--backend", "nccl"])
    _check(proc, results, 1, checks)


def test_two_mpi_ranks_share_the_gpu(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKER_DEVICE", DEVICE)
    checks = (
        COLLECTIVES
        + ["send_recv", "new_group", "debug_shapes", "ddp_mismatch", "ddp_broadcast_buffers"]
        + DDP
    )
    proc, results = launch(2, checks, tmp_path)
    _check(proc, results, 2, checks)


@pytest.mark.skipif(not dist.is_nccl_available(), reason="CuPy without NCCL")
@pytest.mark.skipif(
    DEVICE == "cpu" or lucid.cuda.device_count() < 2,
    reason="needs two GPUs (issue 10: nvidia-h200-x2)",
)
def test_nccl_two_gpus_every_collective_and_ddp(tmp_path, monkeypatch):
    """One process per GPU over NCCL (issue 10): the collectives on CUDA tensors and DDP,
    the small GPT's 50 steps included, against one process on the global batch."""
    monkeypatch.setenv("WORKER_BACKEND", "nccl")
    monkeypatch.setenv("WORKER_DEVICE", DEVICE)
    checks = COLLECTIVES + ["send_recv", "new_group"] + DDP
    proc, results = launch(2, checks, tmp_path, launcher=["--backend", "nccl"])
    _check(proc, results, 2, checks)
