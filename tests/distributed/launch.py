"""Running tests/distributed/worker.py on N MPI ranks through the launcher."""

import json
import os
import pathlib
import signal
import subprocess
import sys

WORKER = pathlib.Path(__file__).with_name("worker.py")
ROOT = WORKER.parents[2]  # the checkout: the ranks import this lucid, installed or not
LIMIT_S = 120  # a launch that outlives this fails its test (a hang, not a slow run)


def launch(n, checks, out, worker_timeout=60, launcher=()):
    """Run ``checks`` on ``n`` ranks (``launcher``: more options of the launcher);
    returns the finished process and, per rank that wrote one, its results (check ->
    "ok" or the failure)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, WORKER_TIMEOUT=str(worker_timeout), OMP_NUM_THREADS="1", PYTHONPATH=path)
    cmd = [
        sys.executable,
        "-m",
        "lucid.distributed.run",
        "--nproc-per-node",
        str(n),
        *launcher,
        str(WORKER),
        str(out),
    ] + list(checks)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out_text, err_text = proc.communicate(timeout=LIMIT_S)
    finally:  # nothing of the job (mpiexec's daemon, a rank) outlives it
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc = subprocess.CompletedProcess(cmd, proc.returncode, out_text, err_text)
    results = {}
    for r in range(n):
        path = pathlib.Path(out) / f"rank{r}.json"
        if path.exists():
            results[r] = json.loads(path.read_text())
    return proc, results
