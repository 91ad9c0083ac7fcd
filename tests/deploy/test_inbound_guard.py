"""inbound_guard.py on a made-up exchange (root only): a finished hand-in is locked, links are removed, times kept true.

``nbgrader collect`` runs as the instructor and copies what a link points at, so a student who leaves a
link in their hand-in (to a classmate's locked hand-in, to the solutions) would hand in what the
instructor can read. The guard removes every link once the folder is locked, never following one; the
real cycle with nbgrader and real users is ``test_exchange.py``.
"""

from __future__ import annotations

import os
import stat
from datetime import datetime, timedelta, timezone

import pytest

from deploy.jupyterhub.inbound_guard import LOCKED_MODE, NBGRADER_TIME, lock_inbound

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the guard changes owners: root only")


def test_a_locked_hand_in_keeps_its_files_and_loses_its_links(tmp_path, capsys):
    secret = tmp_path / "solutions.ipynb"
    secret.write_text("the answers")
    inbound = tmp_path / "exchange" / "hpml" / "inbound"
    inbound.mkdir(parents=True)
    os.chown(inbound, 1234, 1234)  # the instructor
    hand_in = inbound / "student2+lab01_benchmarking+2026-11-26 10:00:00.000000 UTC+abc"
    (hand_in / "sub").mkdir(parents=True)
    (hand_in / "lab01_benchmarking.ipynb").write_text("{}")
    (hand_in / "timestamp.txt").write_text(datetime.now(timezone.utc).strftime(NBGRADER_TIME))
    (hand_in / "copy.ipynb").symlink_to(secret)
    (hand_in / "sub" / "folder").symlink_to(tmp_path, target_is_directory=True)
    os.chmod(hand_in, 0o777)  # what nbgrader submit leaves once it is done
    assert lock_inbound(tmp_path / "exchange") == [hand_in]
    st = hand_in.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 1234, LOCKED_MODE)
    assert sorted(str(p.relative_to(hand_in)) for p in hand_in.rglob("*")) == [
        "lab01_benchmarking.ipynb",
        "sub",
        "timestamp.txt",
    ]
    assert secret.read_text() == "the answers" and tmp_path.is_dir()  # the targets are untouched
    printed = capsys.readouterr().out
    assert "removed the symbolic link" in printed and "copy.ipynb" in printed and "sub/folder" in printed
    assert lock_inbound(tmp_path / "exchange") == []  # locked once


def test_a_link_in_place_of_a_hand_in_is_removed_and_its_target_kept(tmp_path, capsys):
    inbound = tmp_path / "exchange" / "hpml" / "inbound"
    classmate = inbound / "student1+lab01_benchmarking+2026-11-26 10:00:00.000000 UTC+abc"
    classmate.mkdir(parents=True)
    (classmate / "lab01_benchmarking.ipynb").write_text("student1's answers")
    os.chown(inbound, 1234, 1234)
    os.chmod(classmate, LOCKED_MODE)
    os.chown(classmate, 1234, 1234)  # locked already
    link = inbound / "student2+lab01_benchmarking+2026-11-26 10:01:00.000000 UTC+def"
    link.symlink_to(classmate, target_is_directory=True)
    assert lock_inbound(tmp_path / "exchange") == []
    assert not os.path.lexists(link)
    assert (classmate / "lab01_benchmarking.ipynb").read_text() == "student1's answers"
    assert "a link in place of a hand-in folder" in capsys.readouterr().out


def _hand_in(inbound, name, timestamp):
    folder = inbound / name
    folder.mkdir()
    (folder / "lab01_benchmarking.ipynb").write_text("{}")
    if isinstance(timestamp, str):
        (folder / "timestamp.txt").write_text(timestamp)
    elif timestamp is not None:
        (folder / "timestamp.txt").mkdir()
        (folder / "timestamp.txt" / "inside").write_text("x")
    os.chmod(folder, 0o777)
    return folder


def test_a_back_dated_or_broken_timestamp_is_set_to_when_the_hand_in_was_finished(tmp_path, capsys):
    inbound = tmp_path / "exchange" / "hpml" / "inbound"
    inbound.mkdir(parents=True)
    os.chown(inbound, 1234, 1234)  # the instructor
    now = datetime.now(timezone.utc)
    honest = _hand_in(inbound, "s1+lab+a+x", (now - timedelta(seconds=20)).strftime(NBGRADER_TIME))
    forged = _hand_in(inbound, "s2+lab+b+x", "2026-01-01 00:00:00.000000 UTC")
    garbage = _hand_in(inbound, "s3+lab+c+x", "yesterday")
    folder = _hand_in(inbound, "s4+lab+d+x", timestamp=1)  # timestamp.txt is a folder
    missing = _hand_in(inbound, "s5+lab+e+x", None)
    honest_text = (honest / "timestamp.txt").read_text()
    assert len(lock_inbound(tmp_path / "exchange")) == 5
    assert (honest / "timestamp.txt").read_text() == honest_text
    for hand_in in (forged, garbage, folder, missing):
        when = datetime.strptime((hand_in / "timestamp.txt").read_text(), NBGRADER_TIME).replace(tzinfo=timezone.utc)
        assert abs((when - now).total_seconds()) < 60, hand_in.name
    printed = capsys.readouterr().out
    assert "s2+lab+b+x/timestamp.txt said '2026-01-01 00:00:00.000000 UTC'" in printed
    assert "s1+lab+a+x/timestamp.txt" not in printed
