"""Hand-ins from Canvas, Moodle, Brightspace and Gradescope downloads: matched through a roster, nothing dropped.

Each test builds a download the way that LMS names its files, with a student
the roster knows by LMS id, one it knows by name only, a file of somebody not
on the roster, a file the LMS would never name so, and a roster student who
handed nothing in. The last test grades a Brightspace download of the toy lab
end to end: its times reach nbgrader's late logic.
"""

from __future__ import annotations

import csv
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from autograder import cli, sample_class
from autograder.classroom import lms
from autograder.labs import CourseError
from autograder.pipeline import export, generate
from tests.autograder.toy_course import TOY

NB = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def _zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _roster(path: Path, rows: list[dict[str, str]]) -> Path:
    columns = sorted({k for r in rows for k in r}, key=lambda c: c != "student_id")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        w.writerows(rows)
    return path


ROSTER = [
    {"student_id": "jdoe", "lms_id": "", "email": "jane.doe@uni.edu", "name": "Jane Doe"},
    {"student_id": "bsmith", "lms_id": "", "email": "", "name": "Bob Smith"},
    {"student_id": "cnoone", "lms_id": "", "email": "", "name": "Carla Noone"},  # hands nothing in
]


def _import(tmp_path, members, ids=None, **kw):
    rows = [dict(r, lms_id=(ids or {}).get(r["student_id"], "")) for r in ROSTER]
    download = _zip(tmp_path / "download.zip", members)
    folder, result = lms.import_download("lab01", download, _roster(tmp_path / "roster.csv", rows), tmp_path, **kw)
    return folder, result


def test_canvas_download(tmp_path):
    folder, result = _import(
        tmp_path,
        {
            "doejane_12345_900001_lab01.ipynb": NB,
            "smithbob_LATE_23456_900002_lab01-1.ipynb": NB,  # matched by name; Canvas's LATE flag
            "kentclark_34567_900003_lab01.ipynb": NB,
            "notes.txt": "not from Canvas",
        },
        ids={"jdoe": "12345"},
    )
    assert result.lms == "canvas"
    assert sorted(result.placed) == ["bsmith", "jdoe"]
    assert (folder / "jdoe" / "lab01.ipynb").read_bytes() == NB
    assert (folder / "bsmith" / "lab01-1.ipynb").is_file()
    assert result.late_flags == ["bsmith"]
    assert result.missing == ["cnoone"]
    assert any(
        u.startswith("kentclark_34567_900003_lab01.ipynb: no roster student with id '34567'") for u in result.unmatched
    )
    assert any(u.startswith("notes.txt: not named like a Canvas submission") for u in result.unmatched)
    report = "\n".join(result.report())
    assert "no submission time for 2 student(s)" in report and "marked late by canvas: bsmith" in report
    assert (tmp_path / "lms" / "lab01" / "import.txt").read_text().strip() == report


def test_moodle_download_in_folders_and_flat(tmp_path):
    folder, result = _import(
        tmp_path,
        {
            "Jane Doe_657737_assignsubmission_file_/lab01.ipynb": NB,
            "Bob Smith_657738_assignsubmission_file_lab01.ipynb": NB,
            "Bob Smith_657738_assignsubmission_onlinetext_/onlinetext.html": "<p>see file</p>",
            "Zed Unknown_657739_assignsubmission_file_/lab01.ipynb": NB,
        },
        ids={"jdoe": "657737"},
    )
    assert result.lms == "moodle"
    assert sorted(result.placed) == ["bsmith", "jdoe"]
    assert (folder / "bsmith" / "lab01.ipynb").is_file() and (folder / "jdoe" / "lab01.ipynb").is_file()
    assert any("onlinetext.html: Moodle online text" in u for u in result.unmatched)
    assert any(
        u.startswith("Zed Unknown_657739_assignsubmission_file_/lab01.ipynb: no roster student")
        for u in result.unmatched
    )
    assert result.missing == ["cnoone"]


def test_brightspace_download_gives_submission_times(tmp_path):
    folder, result = _import(
        tmp_path,
        {
            "Lab 01/397063-2557369 - Jane Doe - Sep 24, 2024 926 PM/lab01.ipynb": NB,
            "Lab 01/397063-2557370 - Bob Smith - Sep 25, 2024 1105 AM - lab01.ipynb": NB,
            "Lab 01/index.html": "<html>Brightspace's list</html>",
            "Lab 01/lab01.ipynb": NB,  # somebody zipped a notebook in by hand
        },
    )
    assert result.lms == "brightspace"
    assert result.times == {
        "jdoe": datetime(2024, 9, 24, 21, 26, tzinfo=timezone.utc),
        "bsmith": datetime(2024, 9, 25, 11, 5, tzinfo=timezone.utc),
    }
    assert (folder / "jdoe" / "timestamp.txt").read_text() == "2024-09-24 21:26:00.000000 UTC"
    assert [u.split(":")[0] for u in result.unmatched] == ["lab01.ipynb"]
    assert result.missing == ["cnoone"]


def test_brightspace_times_in_the_lms_time_zone(tmp_path):
    members = {
        "1-2 - Jane Doe - Jan 5, 2026 1130 PM/lab01.ipynb": NB,
        "1-3 - Bob Smith - Jul 5, 2026 1130 PM/lab01.ipynb": NB,
    }
    _, result = _import(tmp_path, members, time_zone="America/New_York")
    assert result.times["jdoe"] == datetime(2026, 1, 6, 4, 30, tzinfo=timezone.utc)  # EST, UTC-5
    assert result.times["bsmith"] == datetime(2026, 7, 6, 3, 30, tzinfo=timezone.utc)  # EDT, UTC-4
    with pytest.raises(CourseError, match="unknown time zone 'Mars/Olympus'"):
        _import(tmp_path, members, time_zone="Mars/Olympus")


def test_gradescope_download_with_a_group_hand_in(tmp_path):
    meta = """\
submission_101:
  :submitters:
  - :name: Jane Doe
    :sid: '0001'
    :email: jane.doe@uni.edu
  - :name: Bob Smith
    :sid: '0002'
    :email: bob@uni.edu
  :created_at: 2026-11-20 23:35:10.123456000 -08:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Someone Else
    :sid: '0099'
    :email: else@uni.edu
  :created_at: 2026-11-19 10:00:00.000000000 +00:00
"""
    folder, result = _import(
        tmp_path,
        {
            "submission_metadata.yml": meta,
            "submission_101/lab01.ipynb": NB,
            "submission_102/lab01.ipynb": NB,
            "stray.ipynb": NB,
        },
    )
    assert result.lms == "gradescope"
    assert sorted(result.placed) == ["bsmith", "jdoe"]  # jdoe by email, bsmith by name
    assert result.times["jdoe"] == datetime(2026, 11, 21, 7, 35, 10, 123456, tzinfo=timezone.utc)
    assert (folder / "bsmith" / "timestamp.txt").read_text() == "2026-11-21 07:35:10.123456 UTC"
    assert sorted(u.split(":")[0] for u in result.unmatched) == ["stray.ipynb", "submission_102/lab01.ipynb"]


def test_roster_times_fill_in_where_the_download_has_none(tmp_path):
    rows = [dict(r, submitted_at="2026-11-21T09:30:00+01:00") if r["student_id"] == "jdoe" else r for r in ROSTER]
    download = _zip(tmp_path / "d.zip", {"doejane_1_2_lab01.ipynb": NB})
    folder, result = lms.import_download("lab01", download, _roster(tmp_path / "r.csv", rows), tmp_path)
    assert (folder / "jdoe" / "timestamp.txt").read_text() == "2026-11-21 08:30:00.000000 UTC"


@pytest.mark.parametrize(
    "rows, message",
    [
        ([{"id": "jdoe", "name": "Jane Doe"}], "needs a student_id column"),
        ([{"student_id": "jdoe"}], "at least one of the columns lms_id, email, name"),
        ([{"student_id": "jdoe", "name": "A"}, {"student_id": "jdoe", "name": "B"}], "jdoe appears twice"),
        ([{"student_id": "j doe", "name": "A"}], "not a usable id"),
        ([{"student_id": "jdoe", "name": "A", "submitted_at": "yesterday"}], "not an ISO date and time"),
    ],
)
def test_a_bad_roster_is_a_clear_error(tmp_path, rows, message):
    with pytest.raises(CourseError, match=message):
        lms.read_roster(_roster(tmp_path / "roster.csv", rows))


def test_two_roster_students_with_one_name_are_not_guessed(tmp_path):
    roster = lms.read_roster(
        _roster(
            tmp_path / "r.csv", [{"student_id": "js1", "name": "Jo Smith"}, {"student_id": "js2", "name": "Jo Smith"}]
        )
    )
    who, why = lms.match(lms.HandIn(tmp_path / "f", "f", name="smithjo"), roster)
    assert who is None and "fits 2 roster students" in why


def test_an_unknown_layout_says_what_is_expected(tmp_path):
    (tmp_path / "dl").mkdir()
    (tmp_path / "dl" / "homework.ipynb").write_bytes(NB)
    with pytest.raises(CourseError, match="not a Canvas, Moodle, Brightspace or Gradescope download"):
        lms.detect(tmp_path / "dl")


@pytest.mark.slow
def test_a_brightspace_download_is_graded_with_its_late_hand_in(toy_course, tmp_path):
    release = generate.generate_lab(TOY, toy_course)[0]
    files = sample_class.build_sample_class(tmp_path / "class", toy_course.source / TOY / f"{TOY}.ipynb", release)
    perfect = nbformat.writes(nbformat.read(files["perfect"], as_version=4))
    download = _zip(
        tmp_path / "brightspace.zip",
        {
            f"Toy Lab/1-11 - Jane Doe - Nov 20, 2026 1130 PM/{TOY}.ipynb": perfect,
            f"Toy Lab/1-12 - Bob Smith - Nov 21, 2026 1005 AM - {TOY}.ipynb": perfect,
            "Toy Lab/index.html": "<html></html>",
        },
    )
    roster = _roster(tmp_path / "roster.csv", ROSTER)
    code = cli.main(
        ["autograde", TOY, str(download), "--roster", str(roster), "--due", "2026-11-20 23:59:00 UTC", "--jobs", "2"]
    )
    assert code == 0
    rows = {r.student_id: r for r in export.collect_results(toy_course)}
    assert sorted(rows) == ["bsmith", "jdoe"]
    assert rows["jdoe"].status == "graded" and rows["jdoe"].score == 5
    assert rows["bsmith"].status == "late" and rows["bsmith"].score == 5
    assert "after the due date" in rows["bsmith"].message
    assert "no hand-in from 1 roster student(s): cnoone" in (toy_course.work / "lms" / TOY / "import.txt").read_text()


def test_lms_without_roster_is_refused(toy_course, tmp_path, capsys):
    assert cli.main(["autograde", TOY, str(tmp_path), "--lms", "canvas"]) != 0
    assert "--lms needs --roster" in capsys.readouterr().err
