"""A single-node Slurm cluster on this machine, for the tests and the benchmark (run as root).

    python3 deploy/slurm/cluster.py start [--dir DIR] [--memory-limits] [--stand-in-gpus N]   # prints SLURM_CONF
    python3 deploy/slurm/cluster.py stop [--dir DIR]

It writes ``slurm.conf`` (and ``cgroup.conf``) into ``DIR`` (default
``/tmp/hpml-slurm``) for this host (``hostname -s``, 127.0.0.1), starts
``munged``, ``slurmctld`` and ``slurmd`` from Debian's ``slurm-wlm`` and
``munge`` (``make slurm-tools`` installs them), and waits until the node is
idle; ``stop`` ends the three by their process ids. Every client command must
see the same configuration: ``SLURM_CONF=DIR/slurm.conf`` (set by
:func:`start` for this process). With ``--memory-limits`` the node tracks jobs
with cgroups and a task over its ``--mem`` is killed (state ``OUT_OF_MEMORY``).
With ``--stand-in-gpus N`` the node declares N GPUs (``Gres=gpu:N``) whose device
files are made for the cluster (copies of ``/dev/null``): a GPU lab's
``--gres=gpu:1`` is scheduled, and Slurm sets the task's GPU variables, on a
machine without a GPU.
Job records stay in ``slurmctld`` for ``MinJobAge`` (here 10 minutes), which is
where ``scontrol show job`` reads finished tasks from: no accounting database.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

try:
    from .. import ports
except ImportError:  # run as a script: python3 deploy/slurm/cluster.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # deploy/, for ports.py
    import ports  # type: ignore[no-redef]

DEFAULT_DIR = Path("/tmp/hpml-slurm")
DAEMONS = ("slurmd", "slurmctld", "munged")  # stopped in this order


def why_not() -> str:
    """Why a cluster cannot start here, or an empty string."""
    if os.geteuid() != 0:
        return "not root: slurmd and munged must run as root"
    missing = [d for d in ("munged", "slurmctld", "slurmd", "sbatch") if shutil.which(d) is None]
    if missing:
        return f"no {', '.join(missing)}: `make slurm-tools` installs Debian's slurm-wlm and munge (as root, with apt)"
    return ""


def write_config(folder: Path, memory_limits: bool, stand_in_gpus: int = 0) -> Path:
    """``slurm.conf`` (and ``cgroup.conf``, ``gres.conf``) for one node: this host, its cores, most of its memory,
    and ``stand_in_gpus`` GPUs whose device files are copies of ``/dev/null``."""
    host = socket.gethostname().split(".")[0]
    cpus = os.cpu_count() or 1
    memory_mb = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20 * 0.8)
    for sub in ("state", "spool", "log"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    tracking = (
        [
            "ProctrackType=proctrack/cgroup",
            "TaskPlugin=task/cgroup,task/affinity",
            "SelectTypeParameters=CR_Core_Memory",
            f"DefMemPerCPU={memory_mb // cpus}",
        ]
        if memory_limits
        else ["ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SelectTypeParameters=CR_Core"]
    )
    ctld_port, slurmd_port = ports.free_ports(2)
    lines = [
        "ClusterName=hpml",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={slurmd_port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        f"AuthInfo=socket={folder / 'munge.socket'}",
        f"StateSaveLocation={folder / 'state'}",
        f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
        f"SlurmdPidFile={folder / 'slurmd.pid'}",
        f"SlurmctldLogFile={folder / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={folder / 'log' / 'slurmd.log'}",
        "SelectType=select/cons_tres",
        *tracking,
        "ReturnToService=2",
        "MinJobAge=600",
        "SchedulerType=sched/backfill",
        "SchedulerParameters=sched_interval=1",
        "MpiDefault=none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "KillWait=5",
        *(["GresTypes=gpu"] if stand_in_gpus else []),
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN"
        + (f" Gres=gpu:{stand_in_gpus}" if stand_in_gpus else ""),
        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]
    conf = folder / "slurm.conf"
    conf.write_text("\n".join(lines) + "\n")
    (folder / "cgroup.conf").write_text("CgroupPlugin=autodetect\nConstrainRAMSpace=yes\nConstrainSwapSpace=yes\n")
    if stand_in_gpus:
        devices = folder / "gpus"
        devices.mkdir(exist_ok=True)
        for i in range(stand_in_gpus):
            node = devices / f"nvidia{i}"
            if not node.exists():
                os.mknod(node, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
        (folder / "gres.conf").write_text(f"NodeName={host} Name=gpu File={devices}/nvidia[0-{stand_in_gpus - 1}]\n")
    return conf


def _munged(folder: Path) -> None:
    key = Path("/etc/munge/munge.key")
    if not key.exists():
        subprocess.run(["mungekey", "--create"], check=True)
    for d in ("/run/munge", "/var/log/munge", "/var/lib/munge"):
        Path(d).mkdir(parents=True, exist_ok=True)
    pid_file = folder / "munged.pid"
    subprocess.run(
        ["munged", "--force", f"--pid-file={pid_file}", f"--socket={folder / 'munge.socket'}"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def start(
    folder: Path = DEFAULT_DIR, memory_limits: bool = False, timeout: float = 60.0, stand_in_gpus: int = 0
) -> Path:
    """Start the cluster; return its ``slurm.conf`` (also put in ``os.environ['SLURM_CONF']``)."""
    why = why_not()
    if why:
        raise SystemExit(f"cluster: {why}")
    stop(folder)
    folder.mkdir(parents=True, exist_ok=True)
    conf = write_config(folder, memory_limits, stand_in_gpus)
    env = dict(os.environ, SLURM_CONF=str(conf))
    _munged(folder)
    os.environ["SLURM_CONF"] = str(conf)
    os.environ.pop("SLURM_JOB_ID", None)
    # -i: ignore state saved by an earlier cluster in this folder
    subprocess.run(["slurmctld", "-i", "-f", str(conf)], check=True, env=env)
    subprocess.run(["slurmd", "-f", str(conf)], check=True, env=env)
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        done = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env)
        state = done.stdout.strip()
        if state in ("idle", "mixed", "allocated"):
            return conf
        time.sleep(0.5)
    log = (folder / "log" / "slurmctld.log").read_text(errors="replace")[-2000:] if folder.exists() else ""
    stop(folder)
    raise SystemExit(f"cluster: the node is {state or 'unknown'}, not idle, after {timeout:.0f} s\n{log}")


def _pid(folder: Path, daemon: str) -> int | None:
    try:
        return int((folder / f"{daemon}.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(folder: Path = DEFAULT_DIR, timeout: float = 15.0) -> list[str]:
    """Stop the daemons started in ``folder`` by their process ids; return the ones that were running."""
    stopped = []
    for daemon in DAEMONS:
        pid = _pid(folder, daemon)
        if pid is None or not _alive(pid):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            (folder / f"{daemon}.pid").unlink()
        stopped.append(daemon)
    return stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cluster.py", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("start", "stop"))
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"configuration and state ({DEFAULT_DIR})")
    parser.add_argument("--memory-limits", action="store_true", help="track jobs with cgroups (OOM over --mem)")
    parser.add_argument("--stand-in-gpus", type=int, default=0, metavar="N", help="declare N GPUs (stand-in devices)")
    args = parser.parse_args(argv)
    if args.command == "start":
        conf = start(args.dir, args.memory_limits, stand_in_gpus=args.stand_in_gpus)
        print(f"cluster up: export SLURM_CONF={conf}")
    else:
        print("stopped: " + (", ".join(stop(args.dir)) or "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
