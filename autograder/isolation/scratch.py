"""The student's scratch folder: a fresh copy of their own files, where the grading kernel runs."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["prepare_scratch"]


def prepare_scratch(submission_dir: Path, scratch: Path, extra_files=()) -> Path:
    """Make ``scratch`` a fresh folder holding only this student's own files; return it (absolute).

    ``submission_dir`` is the student's folder (or one notebook file) as
    submitted: the notebook as submitted has no hidden tests; never pass the
    autograded or sanitized copy. ``extra_files`` are the lab's released
    support files (data the notebook opens), copied to the top of the folder.
    Symbolic links are skipped (a link could point at the gradebook), and so are
    ``.ipynb_checkpoints``. An existing ``scratch`` is emptied first.
    """
    submission_dir = Path(submission_dir).resolve()
    scratch = Path(scratch).absolute()
    if not submission_dir.exists():
        raise FileNotFoundError(f"no submission at {submission_dir}")
    if scratch.resolve() in (submission_dir, *submission_dir.parents) or scratch.resolve() == Path("/"):
        raise ValueError(f"scratch folder {scratch} would contain the submission {submission_dir}: choose another")
    if scratch.is_symlink() or scratch.is_file():
        scratch.unlink()
    elif scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True, mode=0o700)
    if submission_dir.is_file():
        shutil.copyfile(submission_dir, scratch / submission_dir.name)
    else:
        for src in sorted(submission_dir.rglob("*")):
            rel = src.relative_to(submission_dir)
            if any(p == ".ipynb_checkpoints" for p in rel.parts):
                continue
            if any(p.is_symlink() for p in [src, *list(src.parents)[: len(rel.parts) - 1]]):
                continue
            dest = scratch / rel
            if src.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
            elif src.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)
    for extra in extra_files:
        extra = Path(extra)
        if extra.is_file() and not extra.is_symlink():
            shutil.copyfile(extra, scratch / extra.name)
    return scratch
