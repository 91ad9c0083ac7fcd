"""hpml_lab_utils.io_counters: bytes read, from /proc/self/io."""

from __future__ import annotations

import mmap
import sys

from hpml_lab_utils import io_counters
from hpml_lab_utils.io_counters import bytes_read, counting_reads

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/io is Linux's")

MIB = 1 << 20


def test_reading_a_file_counts_its_bytes_and_reading_part_of_it_counts_that_part(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(4 * MIB))
    with counting_reads() as whole:
        assert len(path.read_bytes()) == 4 * MIB
    with counting_reads() as part, open(path, "rb") as f:
        f.seek(3 * MIB)
        assert len(f.read(1000)) == 1000
    assert 4 * MIB <= whole.bytes < 4 * MIB + 64 * 1024
    assert 1000 <= part.bytes < 64 * 1024


def test_pages_of_a_memory_mapped_file_are_not_read_calls(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"\x01" * (4 * MIB))
    with counting_reads() as reads, open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert sum(m[i] for i in range(0, len(m), 4096)) == MIB // 1024
    assert reads.bytes < 64 * 1024


def test_without_proc_self_io_nothing_is_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(io_counters, "PROC_IO", tmp_path / "missing")
    assert bytes_read() is None
    with counting_reads() as reads:
        pass
    assert reads.bytes is None
    (tmp_path / "io").write_text("wchar: 5\n")
    monkeypatch.setattr(io_counters, "PROC_IO", tmp_path / "io")
    assert bytes_read() is None
