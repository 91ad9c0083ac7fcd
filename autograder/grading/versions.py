"""What a grade depends on, as hashes: an unchanged submission of an unchanged lab is not graded again."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..labs import source_notebooks
from ..limits import Limits
from ..paths import CoursePaths


def digest(chunks: Iterable[bytes | str | object]) -> str:
    """SHA-256 of the chunks, each followed by a NUL byte (so that ``["ab", "c"]`` differs from ``["a", "bc"]``)."""
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk if isinstance(chunk, bytes) else str(chunk).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def lab_version(lab: str, paths: CoursePaths, limits: Limits) -> str:
    """A hash of what a grade depends on besides the submission: the lab's source notebooks and its limits."""
    sources = source_notebooks(lab, paths)
    limit_values = [f"{k}={v}" for k, v in sorted(dataclasses.asdict(limits).items())]
    return digest([p.name for p in sources] + [p.read_bytes() for p in sources] + limit_values)


def submission_hash(notebooks: Mapping[str, Path], timestamp: Path | None = None) -> str:
    """A hash of the submitted files (and ``timestamp.txt``): equal hashes, equal submissions."""
    chunks: list = []
    for name in sorted(notebooks):
        path = Path(notebooks[name])
        chunks += [name, path.read_bytes() if path.is_file() else b"<missing>"]
    if timestamp is not None and timestamp.is_file():
        chunks += ["timestamp.txt", timestamp.read_bytes()]
    return digest(chunks)
