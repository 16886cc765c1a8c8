"""lucid.distributed in one process, without a launch: what fails before a process group
exists, without the backends' libraries, and the layers that need no peer (SyncBatchNorm
outside training, convert_sync_batchnorm, the launcher's command line)."""

import subprocess
import sys

import numpy as np
import pytest

import lucid
import lucid.distributed as dist
import lucid.nn as nn
from lucid.errors import ArgumentError, DistributedError
from lucid.nn.parallel import DistributedDataParallel


@pytest.mark.parametrize(
    "call",
    [
        lambda: dist.all_reduce(lucid.ones(2)),
        lambda: dist.broadcast(lucid.ones(2), 0),
        lambda: dist.barrier(),
        lambda: dist.get_rank(),
        lambda: dist.new_group([0]),
        lambda: DistributedDataParallel(nn.Linear(2, 2)),
    ],
    ids=["all_reduce", "broadcast", "barrier", "get_rank", "new_group", "DDP"],
)
def test_before_init_raises(call):
    assert not dist.is_initialized()
    with pytest.raises(DistributedError, match="not been initialized"):
        call()


def test_unknown_backend_and_bad_timeout():
    with pytest.raises(ArgumentError, match="unknown backend 'gloo'"):
        dist.init_process_group("gloo")
    with pytest.raises(ArgumentError, match="positive duration"):
        dist.init_process_group("mpi", timeout=0)
    assert not dist.is_initialized()


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_import_without_mpi4py_and_a_clear_error_on_use():
    """``import lucid`` needs neither mpi4py nor CuPy; asking for their backend says how
    to install them."""
    p = _run(
        "import sys; sys.modules['mpi4py'] = None; sys.modules['cupy'] = None\n"
        "import lucid, lucid.distributed as d\n"
        "for b in ('mpi', 'nccl'):\n"
        "    try: d.init_process_group(b)\n"
        "    except lucid.errors.DistributedError as e: print(b, e)\n"
    )
    assert p.returncode == 0, p.stderr
    mpi, nccl = p.stdout.strip().splitlines()
    assert (
        mpi.startswith("mpi init_process_group: the 'mpi' backend needs mpi4py")
        and "pip install 'lucid[distributed]'" in mpi
    )
    assert (
        nccl.startswith("nccl init_process_group: the 'nccl' backend needs CuPy")
        and "lucid[cuda12]" in nccl
    )


def test_one_rank_mpi_without_a_launcher():
    """A script started without mpiexec is a world of one: every collective is the
    identity, and DDP trains as the module alone would."""
    p = _run(
        "import lucid, lucid.distributed as d, lucid.nn as nn\n"
        "d.init_process_group('mpi', timeout=30)\n"
        "x = lucid.arange(3.0); d.all_reduce(x, d.ReduceOp.AVG)\n"
        "out = [lucid.zeros(3)]; d.all_gather(out, x)\n"
        "m = nn.parallel.DistributedDataParallel(nn.Linear(3, 1))\n"
        "m(x).sum().backward()\n"
        "print(d.get_rank(), d.get_world_size(), d.get_backend(), x.tolist(), "
        "out[0].tolist(), m.module.weight.grad.tolist())\n"
        "d.destroy_process_group(); print(d.is_initialized())\n"
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == [
        "0 1 mpi [0.0, 1.0, 2.0] [0.0, 1.0, 2.0] [[0.0, 1.0, 2.0]]",
        "False",
    ]


def test_syncbatchnorm_is_batchnorm_outside_distributed_training():
    lucid.manual_seed(0)
    bn = nn.BatchNorm2d(3)
    x = lucid.randn(4, 3, 2, 2)
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(bn, nn.ReLU()))
    assert isinstance(sync[0], nn.SyncBatchNorm) and sync[0].weight is bn.weight
    assert sync[0].running_mean is bn.running_mean
    ref = nn.BatchNorm2d(3)
    np.testing.assert_allclose(
        sync[0](x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6
    )  # training, no process group
    np.testing.assert_allclose(bn.running_var.numpy(), ref.running_var.numpy(), rtol=1e-6)
    sync.eval()
    ref.eval()
    np.testing.assert_allclose(
        sync[0](x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6
    )
    with pytest.raises(lucid.errors.ShapeError, match="at least 2D"):
        nn.SyncBatchNorm(3)(lucid.ones(3))


def test_launcher_command_line():
    from lucid.distributed.run import mpiexec_command

    cmd = mpiexec_command(64, ["python", "s.py", "--x"])
    assert cmd[-5:] == ["-n", "64", "python", "s.py", "--x"]
    assert "--oversubscribe" in cmd and cmd[cmd.index("--with-ft") + 1] == "ulfm"
    p = subprocess.run(
        [sys.executable, "-m", "lucid.distributed.run", "--nproc-per-node", "0", "s.py"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode != 0 and "at least 1" in p.stderr


def test_launcher_nccl_mode_sets_torchrun_variables_and_ends_the_rest(tmp_path):
    """``--backend nccl`` starts the processes itself (no GPU needed to check that): each
    sees RANK, WORLD_SIZE, LOCAL_RANK and MASTER_*; when rank 1 fails the launcher ends
    rank 0, which would otherwise wait forever, and exits with rank 1's status. (Each rank
    writes its record whole, by a rename; rank 1 fails only once rank 0's is there, else
    the launcher could end rank 0 before it wrote.)"""
    script = tmp_path / "s.py"
    script.write_text(
        "import os, signal, sys, time\n"
        "e = os.environ\n"
        "out = sys.argv[1] + e['RANK']\n"
        "open(out + '.tmp', 'w').write(' '.join(e[k] for k in ('RANK', "
        "'WORLD_SIZE', 'LOCAL_RANK', 'MASTER_ADDR', 'MASTER_PORT')))\n"
        "os.replace(out + '.tmp', out)\n"
        "if e['RANK'] == '1':\n"
        "    t = time.monotonic()\n"
        "    while not os.path.exists(sys.argv[1] + '0') and time.monotonic() - t < 30:\n"
        "        time.sleep(0.01)\n"
        "    sys.exit(3)\n"
        "signal.pause()\n"
    )
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "lucid.distributed.run",
            "--backend",
            "nccl",
            "--nproc-per-node",
            "2",
            "--master-port",
            "29611",
            str(script),
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 3, p.stderr
    assert (tmp_path / "r1").read_text() == "1 2 1 127.0.0.1 29611"
    assert (tmp_path / "r0").read_text() == "0 2 0 127.0.0.1 29611"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_launcher_stops_an_mpiexec_that_outlives_its_ranks(monkeypatch, capfd):
    """A stand-in for mpiexec whose only child (a "rank") ends while it sleeps on: the
    launcher stops it after the grace period and reports failure; one that ends by
    itself keeps its status."""
    from lucid.distributed import run

    monkeypatch.setattr(run, "GRACE_S", 1.0)
    hung = [
        sys.executable,
        "-c",
        "import subprocess, sys, time; "
        "subprocess.run([sys.executable, '-c', 'import time; time.sleep(1.5)']); "
        "time.sleep(60)",
    ]
    assert run._run_mpiexec(hung) == 1  # (left alone it would sleep on, then exit 0)
    assert "still running 1 s after its last rank had ended" in capfd.readouterr().err
    assert run._run_mpiexec([sys.executable, "-c", "import sys; sys.exit(3)"]) == 3


def test_launcher_fails_a_job_whose_rank_marked_a_failure(monkeypatch, capfd):
    """A rank whose process group broke leaves a mark (lucid.distributed.group's exit
    handler); the launch then fails even where mpiexec ends with status 0."""
    from lucid.distributed import run

    script = (
        "import importlib; m = importlib.import_module('lucid.distributed.group'); "
        "m.record_failure(type('G', (), {'global_rank': 1, 'broken': 'a peer died'}))"
    )
    monkeypatch.setattr(
        run, "mpiexec_command", lambda n, argv, extra=(): [sys.executable, "-c", script]
    )
    assert run.main(["--nproc-per-node", "2", "script.py"]) == 1
    assert "but rank1 ended after its process group failed" in capfd.readouterr().err
    monkeypatch.setattr(
        run, "mpiexec_command", lambda n, argv, extra=(): [sys.executable, "-c", "pass"]
    )
    assert run.main(["--nproc-per-node", "2", "script.py"]) == 0


def test_tcp_rendezvous_hands_rank0_bytes_to_every_rank():
    """The rendezvous that gives the NCCL unique id to the other ranks, run over threads."""
    import threading
    from lucid.distributed.rendezvous import share

    got = {}

    def rank(r):
        got[r] = share(b"id-of-rank-0" if r == 0 else b"", r, 3, 30, "127.0.0.1", 29612)

    ts = [threading.Thread(target=rank, args=(r,)) for r in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert got == {r: b"id-of-rank-0" for r in range(3)}
