"""Start one student's grading kernel inside its limits (and inside bubblewrap when asked).

    python -m autograder.isolation.kernel_launcher --scratch DIR --limits JSON [--bwrap] \\
        [--runtime-dir DIR] [--hide PATH]... [--reveal PATH]... [--cgroup DIR]... [--no-address-limit] \\
        [--bwrap-extra JSON] [--shm-mb N] -- KERNEL ARGV...

:class:`autograder.isolation.sandbox.SandboxedKernelManager` builds this command; you do
not normally run it by hand. It runs the file directly (``python -I -S
.../kernel_launcher.py``), so this module uses the standard library only and
starts in milliseconds (importing the ``autograder`` package takes seconds).

In order, it:

1. joins each cgroup ``--cgroup`` (created by the kernel manager: ``pids.max``
   = ``max_processes``; for a GPU kernel the memory limit), when given;
2. sets ``RLIMIT_AS`` (``memory_mb``; not with ``--no-address-limit``, which a
   CUDA context needs), ``RLIMIT_FSIZE`` (``max_file_bytes``),
   ``RLIMIT_CORE`` = 0, and ``RLIMIT_NPROC`` when not root (root is exempt from
   it: the cgroup bounds processes then);
3. starts a new session (process group), unless it already leads one;
4. changes to the scratch folder;
5. execs the kernel, or with ``--bwrap`` execs ``bwrap`` (:func:`bwrap_argv`)
   that runs the kernel in a network namespace of its own (its own loopback,
   no route out), a read-only file system, a fresh ``/tmp``, ``/dev`` and
   ``/proc`` (``/dev/shm`` a tmpfs of ``--shm-mb`` MiB when given: bubblewrap
   0.8 sizes a tmpfs), the ``--hide`` folders replaced by empty
   tmpfs (``--reveal`` folders bound back read-only inside them), and only the
   scratch folder and the kernel's runtime folder (connection file and IPC
   sockets) writable; ``--bwrap-extra`` (a JSON list of bubblewrap arguments)
   adds the worker's GPU device nodes to the fresh ``/dev``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys

MiB = 1 << 20
BWRAP = "bwrap"


def _norm(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or below it (both normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def bwrap_argv(
    kernel_argv: list[str],
    *,
    scratch: str,
    runtime_dir: str | None = None,
    hide: list[str] = (),
    reveal: list[str] = (),
    bwrap: str = BWRAP,
    extra: list[str] = (),
    shm_mb: int | None = None,
) -> list[str]:
    """The ``bwrap`` command line that runs ``kernel_argv`` in the sandbox (see the module docstring).

    Mount order matters (bwrap applies them in order): the whole file system
    read-only; fresh ``/dev``, ``/proc``, ``/tmp``; the hidden folders as empty
    tmpfs; the revealed folders bound back read-only (only those inside a
    hidden folder, never one that would uncover a hidden folder); hidden folders
    that lie inside a revealed one hidden again; finally the scratch and
    runtime folders bound writable.
    """
    scratch = _norm(scratch)
    hide_n = sorted({_norm(h) for h in hide if h}, key=len)
    reveal_n = []
    for r in sorted({_norm(r) for r in reveal if r}, key=len):
        if not os.path.exists(r) or r in ("/",):
            continue
        if not any(_inside(r, h) for h in hide_n):
            continue  # visible anyway (read-only)
        if any(r == h for h in hide_n):
            continue  # revealing a hidden folder itself would undo the hiding
        reveal_n.append(r)
    argv = [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        *(["--size", str(shm_mb * MiB), "--perms", "1777", "--tmpfs", "/dev/shm"] if shm_mb else []),
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        *extra,
    ]
    for h in hide_n:
        if os.path.isdir(h):
            argv += ["--tmpfs", h]
        elif os.path.exists(h):
            argv += ["--ro-bind", "/dev/null", h]
    for r in reveal_n:
        argv += ["--ro-bind", r, r]
    for h in hide_n:
        if os.path.isdir(h) and any(_inside(h, r) for r in reveal_n):
            argv += ["--tmpfs", h]
    for w in [scratch] + ([_norm(runtime_dir)] if runtime_dir else []):
        argv += ["--bind", w, w]
    writable = [scratch] + ([_norm(runtime_dir)] if runtime_dir else [])
    home = _norm(os.environ.get("HOME", "/")) if os.environ.get("HOME") else None
    for h in hide_n:  # nothing writes in the hidden folders' empty stand-ins, except HOME (IPython's profile)
        if os.path.isdir(h) and h != home and not any(_inside(w, h) for w in writable):
            argv += ["--remount-ro", h]
    # ipykernel exits when JPY_PARENT_PID is not its parent; in the new pid namespace its parent is pid 1 (bwrap)
    argv += ["--setenv", "JPY_PARENT_PID", "1", "--chdir", scratch, "--"]
    return argv + list(kernel_argv)


def sizes_tmpfs(bwrap: str = BWRAP) -> bool:
    """Whether ``bwrap`` sizes a tmpfs (``--size``, bubblewrap 0.8 and newer): a sandbox with a 1 MiB /dev/shm."""
    import subprocess
    import tempfile

    cmd = bwrap_argv(["true"], scratch=tempfile.gettempdir(), bwrap=bwrap, shm_mb=1)
    try:
        return subprocess.run(cmd, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _user_tasks(uid: int) -> int:
    """Tasks (processes and threads) that ``uid`` has now: what RLIMIT_NPROC counts."""
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            st = os.stat(f"/proc/{pid}")
            if st.st_uid != uid:
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Threads:"):
                        count += int(line.split()[1])
                        break
        except (OSError, ValueError):
            continue
    return count


def apply_limits(limits: dict, cgroups: list[str] = (), address_limit: bool = True) -> list[str]:
    """Apply ``limits`` (a :class:`autograder.limits.Limits` as a dict) to this process; return notes."""
    notes = []
    for cgroup in cgroups:
        try:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        except OSError as exc:
            notes.append(f"could not join cgroup {cgroup}: {exc}")
    if address_limit:
        mem = int(limits.get("memory_mb", 4096)) * MiB
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    fsize = int(limits.get("max_file_bytes", 100 * MiB))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.getuid() != 0:
        nproc = _user_tasks(os.getuid()) + int(limits.get("max_processes", 256))
        soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        if hard != resource.RLIM_INFINITY:
            nproc = min(nproc, hard)
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return notes


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print("kernel_launcher: missing `-- KERNEL ARGV...`", file=sys.stderr)
        return 2
    split = argv.index("--")
    own, kernel_argv = argv[:split], argv[split + 1 :]
    p = argparse.ArgumentParser(
        prog="python -m autograder.isolation.kernel_launcher", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--scratch", required=True, help="the student's scratch folder: the kernel's cwd, its only writable place"
    )
    p.add_argument("--limits", default="{}", help="Limits as JSON (autograder.limits.Limits.to_json())")
    p.add_argument("--bwrap", action="store_true", help="run the kernel under bubblewrap")
    p.add_argument("--bwrap-path", default=BWRAP)
    p.add_argument("--runtime-dir", help="folder of the connection file and IPC sockets (bound writable)")
    p.add_argument("--hide", action="append", default=[], help="folder to replace by an empty tmpfs (repeatable)")
    p.add_argument("--reveal", action="append", default=[], help="folder inside a hidden one to bind back read-only")
    p.add_argument("--cgroup", action="append", default=[], help="cgroup folder to join first (repeatable)")
    p.add_argument(
        "--no-address-limit", action="store_true", help="no RLIMIT_AS (a memory cgroup limits the kernel instead)"
    )
    p.add_argument("--bwrap-extra", default="[]", help="more bubblewrap arguments as a JSON list (GPU nodes)")
    p.add_argument("--shm-mb", type=int, help="size of the sandbox's own /dev/shm in MiB (bubblewrap 0.8 or newer)")
    args = p.parse_args(own)
    if not kernel_argv:
        p.error("no kernel command after --")
    limits = json.loads(args.limits)
    for note in apply_limits(limits, args.cgroup, address_limit=not args.no_address_limit):
        print(f"kernel_launcher: {note}", file=sys.stderr)
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader (jupyter_client starts kernels with start_new_session=True)
    os.chdir(args.scratch)
    if args.bwrap:
        cmd = bwrap_argv(
            kernel_argv,
            scratch=args.scratch,
            runtime_dir=args.runtime_dir,
            hide=args.hide,
            reveal=args.reveal,
            bwrap=args.bwrap_path,
            extra=json.loads(args.bwrap_extra),
            shm_mb=args.shm_mb,
        )
    else:
        cmd = kernel_argv
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(cmd[0], cmd)
    except OSError as exc:
        print(f"kernel_launcher: cannot start {cmd[0]}: {exc}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
