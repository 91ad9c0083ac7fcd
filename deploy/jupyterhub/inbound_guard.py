"""Hand each finished submission in nbgrader's inbound to the instructor, mode 0700 (run as root).

``nbgrader submit`` leaves ``<exchange>/<course>/inbound/<student>+<lab>+<time>+<random>/``
with mode 0777 and its files 0644: only the random suffix hides it, and any user
who learns the name can read another student's answers or write into them. This
guard gives each such folder to the owner of ``inbound/`` (the instructor who
released the lab) with mode 0700: the student who submitted, and every other
student, can no longer enter it; ``nbgrader collect`` (run by the instructor)
reads it as before. Students see their own hand-ins from nbgrader's cache in
their home, never from the inbound. Symbolic links in a hand-in are removed once
it is locked, and a link in place of a hand-in folder at once (each named in the
log): ``nbgrader collect`` runs as the instructor and would copy whatever a link
points at, a classmate's hand-in or the solutions. A ``timestamp.txt`` that says
another time than when the folder was finished (a hand-in made by hand, back-dated)
is set to that moment.

    python3 deploy/jupyterhub/inbound_guard.py EXCHANGE            # watch, every second
    python3 deploy/jupyterhub/inbound_guard.py EXCHANGE --once     # one pass

The class hub runs it as a JupyterHub service (``jupyterhub_config.py``), so it
starts and stops with the hub. Standard library only: it runs under any Python.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import stat
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

# nbgrader's last step of a submission is chmod 0777 on its folder: a folder with that mode is complete
FINISHED_MODE = 0o777
LOCKED_MODE = 0o700
NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f %Z"  # timestamp.txt, as nbgrader submit writes it (UTC)
# nbgrader takes its time before it copies the files (100 MB at most) and sets 0777 last: a time further
# from the moment the folder was finished than this was written by someone else
TIMESTAMP_SLACK_S = 300


def lock_submission(folder: Path, uid: int, gid: int) -> bool:
    """Give one finished submission folder to ``uid:gid`` with mode 0700, then remove the links in it; True if
    it was changed.

    The folder is opened without following links and changed through that
    descriptor, so a student cannot point the guard (root) at another file. Once
    it is locked the student can no longer enter it, so what is removed stays removed.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # gone, a link, or not a folder: nothing of nbgrader's
    try:
        st = os.fstat(fd)
        if st.st_uid == uid or stat.S_IMODE(st.st_mode) != FINISHED_MODE:
            return False  # already locked, the instructor's own, or still being written by nbgrader submit
        os.fchown(fd, uid, gid)
        os.fchmod(fd, LOCKED_MODE)
        for link in remove_links(fd):
            print(f"inbound guard: removed the symbolic link {folder.name}/{link}", flush=True)
        claimed = check_timestamp(fd, st.st_ctime)
        if claimed is not None:
            print(
                f"inbound guard: {folder.name}/timestamp.txt said {claimed!r}; set to when the hand-in was finished",
                flush=True,
            )
        return True
    finally:
        os.close(fd)


def check_timestamp(folder_fd: int, finished: float) -> str | None:
    """Set ``timestamp.txt`` to ``finished`` (the folder's ctime: its last chmod, which no user can back-date)
    when it says another time (more than TIMESTAMP_SLACK_S away), is unreadable or is missing; what it said.

    A student who makes a hand-in folder by hand writes its time too: the grader
    takes ``timestamp.txt`` as the submission time.
    """
    try:
        file_fd = os.open("timestamp.txt", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder_fd)
        with os.fdopen(file_fd, "rb") as f:
            text = f.read(200).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    try:
        when = datetime.strptime(text, NBGRADER_TIME).replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        when = None
    if when is not None and abs(when - finished) <= TIMESTAMP_SLACK_S:
        return None
    true_time = datetime.fromtimestamp(finished, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat("timestamp.txt", dir_fd=folder_fd).st_mode):
            shutil.rmtree("timestamp.txt", dir_fd=folder_fd)
        else:
            os.unlink("timestamp.txt", dir_fd=folder_fd)  # whatever it was (a pipe, a device): a plain file now
    file_fd = os.open("timestamp.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder_fd)
    with os.fdopen(file_fd, "w") as f:
        f.write(true_time)
    return text


def remove_links(folder_fd: int) -> list[str]:
    """Unlink every symbolic link under the open folder ``folder_fd`` (never following one); their paths."""
    removed = []
    for here, dirs, files, here_fd in os.fwalk(dir_fd=folder_fd, follow_symlinks=False):
        for name in dirs + files:
            if stat.S_ISLNK(os.lstat(name, dir_fd=here_fd).st_mode):
                os.unlink(name, dir_fd=here_fd)
                removed.append(os.path.normpath(os.path.join(here, name)))
    return removed


def lock_inbound(exchange: Path) -> list[Path]:
    """One pass over every course's ``inbound/`` in ``exchange``; return the folders it locked."""
    locked = []
    for inbound in sorted(Path(exchange).glob("*/inbound")):
        if inbound.is_symlink() or not inbound.is_dir():
            continue
        owner = inbound.stat()
        for entry in sorted(os.scandir(inbound), key=lambda e: e.name):
            if entry.is_symlink():
                remove_link_in_place_of_hand_in(inbound, entry.name)
            elif lock_submission(Path(entry.path), owner.st_uid, owner.st_gid):
                locked.append(Path(entry.path))
    return locked


def remove_link_in_place_of_hand_in(inbound: Path, name: str) -> None:
    """Unlink ``inbound/name``, a link a student made where a hand-in folder goes.

    nbgrader always makes a real folder; ``nbgrader collect`` (the instructor)
    would collect whatever a link there points at, a classmate's locked hand-in
    under this student's name.
    """
    try:
        os.unlink(inbound / name)
    except OSError:
        return  # gone already
    print(f"inbound guard: removed the symbolic link {name} (a link in place of a hand-in folder)", flush=True)


def watch(exchange: Path, every_s: float = 1.0) -> None:
    """Lock finished submissions every ``every_s`` seconds until stopped (SIGTERM or Ctrl-C).

    An exchange that does not exist yet is watched until it does.
    """
    print(f"inbound guard: watching {exchange}/*/inbound every {every_s:g} s", flush=True)
    while True:
        for folder in lock_inbound(exchange):
            print(f"inbound guard: locked {folder.name}", flush=True)
        time.sleep(every_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inbound_guard.py", description=__doc__.splitlines()[0])
    parser.add_argument("exchange", type=Path, help="nbgrader's exchange root (/srv/nbgrader/exchange)")
    parser.add_argument("--once", action="store_true", help="one pass, then exit")
    parser.add_argument("--every", type=float, default=1.0, metavar="S", help="seconds between passes (1)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("inbound_guard: run it as root (it gives students' submission folders to the instructor)")
    if args.once:
        if not args.exchange.is_dir():
            raise SystemExit(f"inbound_guard: no exchange at {args.exchange}")
        for folder in lock_inbound(args.exchange):
            print(f"locked {folder}")
        return 0
    try:
        watch(args.exchange, args.every)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
