"""Collectives, DistributedDataParallel and SyncBatchNorm on 2 and 3 MPI ranks (CPU).

One launch per world size runs every check of tests/distributed/worker.py: each
collective against its NumPy definition (every reduction and dtype, async handles,
sub-groups, send/recv, argument errors), and DDP training of an MLP and of a small CNN
with SyncBatchNorm for 20 steps, which must end at the weights of one process trained on
the global batch (also with tiny buckets, with no_sync accumulation, with unused
parameters), and of the small GPT for 50 AdamW steps, whose losses must be those of one
process on the global batch."""

import pytest

from .launch import launch

CHECKS = [
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
    "send_recv",
    "objects",
    "new_group",
    "errors",
    "debug_shapes",
    "sampler",
    "syncbn_grad",
    "ddp_mlp",
    "ddp_gpt",
    "ddp_mlp_small_buckets",
    "ddp_overlap",
    "ddp_bucket_view",
    "ddp_cnn_syncbn",
    "ddp_no_sync",
    "ddp_unused",
    "ddp_broadcast_buffers",
    "ddp_frozen_parameters",
    "ddp_stall_error",
    "ddp_mismatch",
]


@pytest.fixture(scope="module", params=[2, 3], ids=lambda n: f"{n}ranks")
def ranks(request, tmp_path_factory):
    n = request.param
    proc, results = launch(n, CHECKS, tmp_path_factory.mktemp(f"dist{n}"))
    assert sorted(results) == list(range(n)), proc.stderr[-3000:]
    failed = any(v != "ok" for res in results.values() for v in res.values())
    assert proc.returncode == 0 or failed, proc.stderr[-3000:]  # a failed check: status 1
    return results


@pytest.mark.parametrize("check", CHECKS)
def test_check_on_every_rank(ranks, check):
    for r, res in ranks.items():
        assert res[check] == "ok", f"rank {r}: {res[check]}"
