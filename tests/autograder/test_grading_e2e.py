"""End to end through the real nbgrader: the sample class of lab01 graded in a temporary grading folder.

The class (perfect, one_wrong, untouched, not_json) is built from the current
solution and a fresh release, zipped, and graded once for the module with the
CLI (``autograde``, ``feedback``, ``export``). Expected points are read from the
source notebook's metadata, never typed in.
"""

from __future__ import annotations

import csv
import html
import re
import shutil
import time

import nbformat
import pytest

from autograder import cli, labs, nbgrader_app, sample_class
from autograder.preprocessors import hidden_test_lines
from autograder.records import StatusStore
from tests.autograder.lab01_class import LAB, ROOT, SOURCE, lab01_class

pytestmark = [pytest.mark.slow, pytest.mark.lab01]


def _points() -> tuple[float, dict[str, float]]:
    """(total autograded points, points per autograded test cell), as the pipeline reads them."""
    per = {c.grade_id: c.points for c in labs.grade_cells(SOURCE) if c.autograded}
    return sum(per.values()), per


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("grading")
    with lab01_class(work) as sample:
        paths = sample.paths
        archive = shutil.make_archive(str(work / "class"), "zip", root_dir=work, base_dir="class")
        t0 = time.perf_counter()
        assert cli.main(["autograde", LAB, archive]) == 0
        grading_s = time.perf_counter() - t0
        assert cli.main(["feedback", LAB]) == 0
        assert cli.main(["export", "--out", str(work / "grades.csv")]) == 0
        results = {r.student_id: r for r in StatusStore(paths.statuses).results(LAB)}
        rows = list(csv.DictReader((work / "grades.csv").open()))
        yield {"paths": paths, "results": results, "rows": rows, "release": sample.release, "grading_s": grading_s}


def test_perfect_gets_every_autograded_point(graded):
    auto, _ = _points()
    r = graded["results"]["perfect"]
    assert r.status == "graded"
    assert r.failed_tests == []
    assert r.score == pytest.approx(auto)
    with nbgrader_app.open_gradebook(graded["paths"]) as gb:  # the gradebook agrees
        sub = gb.find_submission(LAB, "perfect")
        code_score = sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell_type == "code")
        assert code_score == pytest.approx(auto)


def test_untouched_gets_zero(graded):
    _, per = _points()
    r = graded["results"]["untouched"]
    assert r.status == "graded"
    assert r.score == 0
    assert sorted(r.failed_tests) == sorted(per), "the untouched release must fail every autograded test"


def test_one_wrong_loses_exactly_average_throughput(graded):
    auto, per = _points()
    r = graded["results"]["one_wrong"]
    assert r.status == "graded"
    assert r.failed_tests == [sample_class.WRONG_TEST]
    assert r.score == pytest.approx(auto - per[sample_class.WRONG_TEST])


def test_not_json_is_an_invalid_notebook_and_the_rest_still_grade(graded):
    results = graded["results"]
    assert sorted(results) == sorted(sample_class.STUDENTS)
    assert results["not_json"].status == "invalid notebook"
    assert "invalid JSON" in results["not_json"].message
    assert all(results[s].status == "graded" for s in ("perfect", "one_wrong", "untouched"))


def test_export_csv_rows_and_statuses(graded):
    auto, per = _points()
    rows = {r["student_id"]: r for r in graded["rows"]}
    assert sorted(rows) == sorted(sample_class.STUDENTS)
    assert list(graded["rows"][0]) == ["student_id", "lab", "score", "max_score", "status", "message"]
    assert {r["lab"] for r in rows.values()} == {LAB}
    assert rows["not_json"]["status"] == "invalid notebook" and float(rows["not_json"]["score"]) == 0
    assert rows["untouched"]["status"] == "graded" and float(rows["untouched"]["score"]) == 0
    assert float(rows["perfect"]["score"]) == pytest.approx(auto)
    assert float(rows["one_wrong"]["score"]) == pytest.approx(auto - per[sample_class.WRONG_TEST])
    assert len({r["max_score"] for r in rows.values()}) == 1


def _feedback_text(graded, student: str) -> str:
    path = graded["paths"].feedback / student / LAB / f"{LAB}.html"
    assert path.exists(), f"no feedback for {student}"
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


def test_feedback_leaks_no_hidden_test_and_no_traceback(graded):
    text = _feedback_text(graded, "one_wrong")
    release = "\n".join(c.source for c in nbformat.read(graded["release"], as_version=4).cells)
    blocks = []
    for cell in nbformat.read(SOURCE, as_version=4).cells:
        if cell.cell_type == "code" and "BEGIN HIDDEN TESTS" in cell.source:
            blocks.append([line for line in hidden_test_lines(cell.source) if line not in release])
    assert blocks and all(blocks), "every hidden block needs a line of its own to look for"
    leaked = [line for block in blocks for line in block if line in text]
    assert not leaked, f"hidden test code in the feedback: {leaked[:5]}"
    assert "BEGIN HIDDEN TESTS" not in text
    for marker in ("most recent call last", "Cell In[", "---->"):
        assert marker not in text, f"a traceback reached the feedback ({marker!r})"
    # ... but the student does learn which check failed and why
    assert "AssertionError" in text and "average_throughput" in text


def test_statuses_live_next_to_the_gradebook(graded):
    paths = graded["paths"]
    assert paths.statuses.exists() and paths.gradebook.exists()
    assert paths.statuses.parent == paths.gradebook.parent


def test_the_sample_class_final_grades_by_the_course_policy(graded, tmp_path):
    """export --scores, joined with the rest of the term (docs/policies/), through course-grades."""
    policies = ROOT / "docs" / "policies"
    scores = tmp_path / "scores.csv"
    assert cli.main(["export", "--scores", "--out", str(scores)]) == 0
    lab_rows = {r["student_id"]: r for r in csv.DictReader(scores.open())}
    assert sorted(lab_rows) == ["one_wrong", "perfect", "untouched"]  # not_json has no points to export
    assert all(r["item"] == LAB and r["category"] == "homework" for r in lab_rows.values())
    other = (policies / "sample_class_other_items.csv").read_text().splitlines()[1:]
    scores.write_text(scores.read_text() + "\n".join(other) + "\n")
    final = tmp_path / "final.csv"
    roster = str(policies / "sample_class_roster.csv")
    command = ["course-grades", "--scores", str(scores), "--out", str(final), "--roster", roster]
    assert cli.main([*command, "--lms", "canvas", "--lms", "brightspace"]) == 0
    got = {r["student_id"]: r for r in csv.DictReader(final.open())}

    def homework(sid: str) -> float:
        return 100 * float(lab_rows[sid]["score"]) / float(lab_rows[sid]["max_score"]) if sid in lab_rows else 0.0

    # project, quizzes (lowest of two dropped; untouched's second is late: 0), attendance: from the CSV above
    expected = {
        "perfect": 0.5 * homework("perfect") + 0.30 * 90 + 0.15 * 100 + 0.05 * 100,
        "one_wrong": 0.5 * homework("one_wrong") + 0.30 * 75 + 0.15 * 90 + 0.05 * 80,
        "untouched": 0.5 * homework("untouched") + 0.30 * 60 + 0.15 * 50 + 0.05 * 50,
        "not_json": 0.0 + 0.30 * 80 + 0.15 * 100 + 0.05 * 100,
    }
    for sid, total in expected.items():
        assert float(got[sid]["total"]) == pytest.approx(total, abs=0.005), sid
    assert got["untouched"]["quiz_week02_score"] == "0.00" and got["untouched"]["quiz_week02_dropped"] == "true"
    canvas = list(csv.reader((tmp_path / "final_canvas.csv").open()))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas[1][0].strip() == "Points Possible" and canvas[1][5] == "100"
    assert ["Pat Perfect", "1001", "perfect", "perfect@example.edu", "", got["perfect"]["total"]] in canvas
    brightspace = list(csv.reader((tmp_path / "final_brightspace.csv").open()))
    assert brightspace[0] == ["OrgDefinedId", "Username", "Final grade (%) Points Grade", "End-of-Line Indicator"]
    assert brightspace[1] == ["1004", "not_json", got["not_json"]["total"], "#"]
