"""What a class hands in is treated as hostile: links, huge or deep notebooks, archive bombs, forged times.

Each test builds the attack the way a student would (a symbolic link to a classmate's notebook, a
notebook nested thousands deep, a zip member that expands a thousandfold, a ``timestamp.txt`` in an LMS
upload) and checks that it is refused with a message naming what is wrong, for that student alone,
while the honest student beside it is found as before. No kernel is started.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.classroom import lms
from autograder.grading import submissions
from autograder.grading.submissions import ArchiveRefused, InvalidNotebook, discover, extract_zip, read_notebook

LAB = "lab01_benchmarking"


def _notebook(cells: int = 1) -> str:
    return nbformat.writes(new_notebook(cells=[new_code_cell(f"x = {i}") for i in range(cells)]))


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


# --------------------------------------------------------------------------- links


def test_links_to_a_classmates_notebook_or_folder_are_refused_never_followed(tmp_path):
    subs = tmp_path / "subs"
    honest = _write(subs / "alice" / f"{LAB}.ipynb", _notebook())
    (subs / "mallory").mkdir(parents=True)
    (subs / "mallory" / f"{LAB}.ipynb").symlink_to(honest)  # the classmate's file
    (subs / "oscar").mkdir()
    (subs / "oscar" / "work").symlink_to(subs / "alice", target_is_directory=True)  # the classmate's folder
    (subs / "trudy").symlink_to(subs / "alice", target_is_directory=True)  # a whole student folder
    (subs / "notes.txt").symlink_to(honest)  # a linked file beside the folders is nobody's hand-in
    found = {s.student_id: s for s in discover(subs, [LAB])}
    assert sorted(found) == ["alice", "mallory", "oscar", "trudy"]
    assert found["alice"].notebooks == {LAB: honest} and not found["alice"].problem
    for sid, link in (("mallory", f"mallory/{LAB}.ipynb"), ("oscar", "oscar/work"), ("trudy", "trudy")):
        assert found[sid].notebooks == {}, sid
        assert "symbolic links are not followed" in found[sid].problem and link in found[sid].problem


def test_a_notebook_that_is_a_link_is_not_read(tmp_path):
    target = _write(tmp_path / "solutions.ipynb", _notebook())
    (tmp_path / "x.ipynb").symlink_to(target)
    with pytest.raises(InvalidNotebook, match="symbolic link"):
        read_notebook(tmp_path / "x.ipynb")


# --------------------------------------------------------------------------- pathological notebooks


def test_a_notebook_nested_too_deep_is_invalid_not_a_crash(tmp_path):
    deep = '{"cells": [], "metadata": {"x": ' + "[" * 100_000 + "]" * 100_000 + '}, "nbformat": 4, "nbformat_minor": 5}'
    with pytest.raises(InvalidNotebook, match="nested too deep"):
        read_notebook(_write(tmp_path / "deep.ipynb", deep))
    depth = submissions.MAX_JSON_DEPTH + 1
    nested = '{"cells": [], "metadata": {"x": ' + "[" * depth + "]" * depth + '}, "nbformat": 4, "nbformat_minor": 5}'
    with pytest.raises(InvalidNotebook, match=f"nested more than {submissions.MAX_JSON_DEPTH} deep"):
        read_notebook(_write(tmp_path / "nested.ipynb", nested))


def test_a_huge_notebook_and_one_with_too_many_cells_are_invalid(tmp_path, monkeypatch):
    monkeypatch.setattr(submissions, "MAX_NOTEBOOK_BYTES", 10_000)
    monkeypatch.setattr(submissions, "MAX_CELLS", 50)
    read_notebook(_write(tmp_path / "ok.ipynb", _notebook(50)))  # at the limits: accepted
    with pytest.raises(InvalidNotebook, match="over the limit of 10,000 for a notebook"):
        read_notebook(_write(tmp_path / "big.ipynb", _notebook(1).replace('"x = 0"', '"' + "#" * 20_000 + '"')))
    with pytest.raises(InvalidNotebook, match="51 cells, over the limit of 50"):
        read_notebook(_write(tmp_path / "many.ipynb", _notebook(51)))


def test_json_depth():
    assert submissions.json_depth(1) == 0
    assert submissions.json_depth([]) == 1
    assert submissions.json_depth({"a": [1, {"b": []}]}) == 4


# --------------------------------------------------------------------------- archives


def _zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_members_that_escape_or_expand_are_left_out_and_refuse_their_student(tmp_path):
    archive = _zip(
        tmp_path / "class.zip",
        {
            f"submissions/alice/{LAB}.ipynb": _notebook(),
            f"submissions/bomber/{LAB}.ipynb": _notebook(),
            "submissions/bomber/data.bin": b"\0" * (3 * 2**20),  # 3 MiB of zeros: a few KB compressed
            f"submissions/climber/{LAB}.ipynb": _notebook(),
            "submissions/climber/../../escaped.ipynb": _notebook(),
            "../outside.ipynb": _notebook(),
        },
    )
    extracted = extract_zip(archive, tmp_path / "x", LAB)
    assert extracted.root == tmp_path / "x" / "submissions"
    assert not (tmp_path / "escaped.ipynb").exists() and not (tmp_path / "outside.ipynb").exists()
    assert not (extracted.root / "bomber" / "data.bin").exists()
    assert (
        "expands" in extracted.refused["bomber/data.bin"]
        and "over the limit of 200" in extracted.refused["bomber/data.bin"]
    )
    assert extracted.refused["../outside.ipynb"] == "it points outside the archive"
    found = {s.student_id: s for s in discover(extracted.root, [LAB], extracted.refused)}
    assert sorted(found) == ["alice", "bomber", "climber"]
    assert not found["alice"].problem and found["alice"].notebooks[LAB].exists()
    assert "bomber/data.bin was not extracted (it expands" in found["bomber"].problem
    assert "climber/../../escaped.ipynb was not extracted (it points outside the archive)" in found["climber"].problem


def test_an_archive_with_too_many_files_or_bytes_is_refused_whole(tmp_path, monkeypatch):
    archive = _zip(tmp_path / "class.zip", {f"s{i}/{LAB}.ipynb": _notebook() for i in range(4)})
    monkeypatch.setattr(submissions, "MAX_ARCHIVE_FILES", 3)
    with pytest.raises(ArchiveRefused, match="holds 4 files, over the limit of 3"):
        extract_zip(archive, tmp_path / "x")
    monkeypatch.setattr(submissions, "MAX_ARCHIVE_FILES", 10)
    monkeypatch.setattr(submissions, "MAX_ARCHIVE_BYTES", 2 * len(_notebook()))
    with pytest.raises(ArchiveRefused, match="expands to more than"):
        extract_zip(archive, tmp_path / "x")
    with pytest.raises(ArchiveRefused, match="not a readable zip"):
        extract_zip(_write(tmp_path / "fake.zip", "not a zip"), tmp_path / "y")


# --------------------------------------------------------------------------- LMS downloads


def test_an_lms_download_never_takes_a_students_timestamp_or_link(tmp_path):
    roster = _write(tmp_path / "roster.csv", "student_id,name\njdoe,Jane Doe\nbsmith,Bob Smith\n")
    download = tmp_path / "download"
    _write(download / "Jane Doe_657737_assignsubmission_file_" / "lab01.ipynb", _notebook())
    _write(download / "Jane Doe_657737_assignsubmission_file_" / "timestamp.txt", "2000-01-01 00:00:00.000000 UTC")
    bob = download / "Bob Smith_657738_assignsubmission_file_"
    bob.mkdir()
    (bob / "lab01.ipynb").symlink_to(download / "Jane Doe_657737_assignsubmission_file_" / "lab01.ipynb")
    folder, result = lms.import_download("lab01", download, roster, tmp_path / "work")
    assert sorted(result.placed) == ["jdoe"]
    assert not (folder / "jdoe" / "timestamp.txt").exists()  # Moodle gives no time, and the student's is not one
    assert any("timestamp.txt: a student's timestamp.txt is not copied" in u for u in result.unmatched)
    assert any("lab01.ipynb: a symbolic link" in u for u in result.unmatched)
    assert result.missing == ["bsmith"]


# --------------------------------------------------------------------------- what reaches a spreadsheet


def test_safe_cell_keeps_text_and_numbers_and_disarms_formulas():
    from autograder.spreadsheet import safe_cell

    assert [safe_cell(v) for v in ("alice", "-1.5", "+3", 7, None, "")] == ["alice", "-1.5", "+3", 7, None, ""]
    for formula in ('=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3+cmd", "@SUM(A1)", "\t=1", "\r=1"):
        assert safe_cell(formula) == "'" + formula


def test_grade_files_never_hold_a_formula(tmp_path):
    import csv

    from autograder.classroom import grade_exports
    from autograder.classroom.course_grades import StudentGrade
    from autograder.classroom.lms import RosterEntry
    from autograder.records import GradeResult, write_csv

    evil = '=HYPERLINK("http://evil.example","click")'
    write_csv([GradeResult(evil, "invalid notebook", 0.0, 10.0, "@SUM(1)", lab=LAB)], tmp_path / "grades.csv")
    [row] = list(csv.DictReader((tmp_path / "grades.csv").open()))
    assert row["student_id"] == "'" + evil and row["message"] == "'@SUM(1)" and row["score"] == "0"
    grades = [StudentGrade("jdoe", {}, {}, 91.5, "A", 0, [])]
    roster = {"jdoe": RosterEntry("jdoe", lms_id="-1+cmd", email="=x@y", name="=Doe, Jane")}
    grade_exports.write_canvas(grades, roster, "total", "Course total", tmp_path / "canvas.csv")
    rows = list(csv.reader((tmp_path / "canvas.csv").open()))
    assert rows[2][:4] == ["'=Doe, Jane", "'-1+cmd", "jdoe", "'=x@y"]
    grade_exports.write_brightspace(grades, roster, "total", "Course total", tmp_path / "brightspace.csv")
    assert list(csv.reader((tmp_path / "brightspace.csv").open()))[1][:2] == ["'-1+cmd", "jdoe"]


def test_a_pasted_copy_of_a_graded_cell_is_an_invalid_notebook_not_a_grader_error(tmp_path):
    cells = [new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": "test_x", "grade": True, "points": 1}})]
    cells.append(new_code_cell("x = 2", metadata={"nbgrader": {"grade_id": "test_x", "grade": True, "points": 1}}))
    path = _write(tmp_path / "pasted.ipynb", nbformat.writes(new_notebook(cells=cells)))
    with pytest.raises(InvalidNotebook, match="the graded cell 'test_x' appears twice \\(cells 1 and 2\\)"):
        read_notebook(path)
