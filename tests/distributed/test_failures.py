"""A rank that dies or hangs makes the others fail with a clear error, not hang: the
launch must end (within tests/distributed/launch.LIMIT_S) with a non-zero status, and each
surviving rank must have raised the DistributedError that says what happened."""

from .launch import launch


def test_killed_rank_fails_the_others(tmp_path):
    """The survivors raise "a peer process died" at once (MPI's ULFM, not the 30 s
    timeout). The first to exit aborts the job, which may end the other survivor before
    it has written its result; every result written is that error."""
    proc, results = launch(3, ["kill"], tmp_path, worker_timeout=30)
    assert proc.returncode != 0
    assert results and set(results) <= {0, 2}  # rank 1 was killed before writing
    for res in results.values():
        assert "lucid.errors.DistributedError: all_reduce: a peer process died" in res["kill"], res[
            "kill"
        ]


def test_hung_rank_times_the_others_out(tmp_path):
    proc, results = launch(2, ["hang"], tmp_path, worker_timeout=2)
    assert proc.returncode != 0
    assert list(results) == [0]
    msg = results[0]["hang"]
    assert (
        "lucid.errors.DistributedTimeoutError: all_reduce: timed out after 2 s on rank 0" in msg
    ), msg
