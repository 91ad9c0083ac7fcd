"""Bytes this process reads, from Linux's ``/proc/self/io`` (lab 12): what a loader really asks the files for.

``rchar`` counts every byte that ``read()`` and its relatives returned to the process (files, pipes and
sockets, from the page cache or the disk), so a loader that reads a whole file to use a small part of it
shows. Pages of a memory-mapped file are not counted: they arrive by page faults, not by ``read()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROC_IO = Path("/proc/self/io")


def bytes_read() -> int | None:
    """``rchar`` of ``/proc/self/io``: bytes read by this process so far; None where the file does not exist."""
    try:
        text = PROC_IO.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name == "rchar":
            return int(value)
    return None


@dataclass
class ReadCount:
    """Bytes read inside a :func:`counting_reads` block (None where they cannot be counted)."""

    bytes: int | None = None


@contextmanager
def counting_reads() -> Iterator[ReadCount]:
    """``with counting_reads() as reads: ...`` then ``reads.bytes``: bytes this process read inside the block.

    Reading ``/proc/self/io`` itself costs a few hundred bytes, and the process's other threads (a Jupyter
    kernel's sockets) count too: compare amounts far above that.
    """
    count = ReadCount()
    before = bytes_read()
    try:
        yield count
    finally:
        after = bytes_read()
        if before is not None and after is not None:
            count.bytes = after - before
