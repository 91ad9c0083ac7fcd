"""End to end through the real nbgrader: lab01's sample class, graded once for the run, then feedback, export, grades.

lab01's class of the run (``tests/graded_labs.py``: the sample class ``perfect``,
``one_wrong``, ``untouched``, ``not_json``, plus lab01's CI mutants) was built
from the current solution and a fresh release, zipped and graded with the CLI.
This module writes its feedback and CSV (``feedback``, ``export``) and the
term's grades (``course-grades``) once. Expected points are read from the
source notebook's metadata, never typed in.
"""

from __future__ import annotations

import csv
import html
import re

import nbformat
import pytest

from autograder import cli, sample_class
from autograder.pipeline import nbgrader_app
from autograder.pipeline.preprocessors import hidden_test_lines
from tests.autograder.lab01_class import LAB, ROOT, SOURCE

pytestmark = [pytest.mark.slow, pytest.mark.lab01]
SAMPLE = list(sample_class.STUDENTS)


@pytest.fixture(scope="module")
def graded(graded_lab, tmp_path_factory):
    lab01 = graded_lab(LAB)
    out = tmp_path_factory.mktemp("e2e")
    with pytest.MonkeyPatch.context() as mp:
        for name, value in lab01.env().items():
            mp.setenv(name, value)
        mp.delenv("HPML_COURSE_ROOT", raising=False)
        assert cli.main(["feedback", LAB]) == 0
        assert cli.main(["export", "--out", str(out / "grades.csv")]) == 0
        rows = list(csv.DictReader((out / "grades.csv").open()))
    auto = sum(lab01.points.values())
    return {"lab": lab01, "paths": lab01.paths, "results": lab01.results, "rows": rows, "auto": auto}


def test_perfect_in_the_gradebook_gets_every_autograded_point(graded):
    with nbgrader_app.open_gradebook(graded["paths"]) as gb:
        sub = gb.find_submission(LAB, "perfect")
        code_score = sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell_type == "code")
        assert code_score == pytest.approx(graded["auto"])


def test_one_wrong_loses_exactly_average_throughput(graded):
    per = graded["lab"].points
    r = graded["results"]["one_wrong"]
    assert r.status == "graded"
    assert r.failed_tests == [sample_class.WRONG_TEST]
    assert r.score == pytest.approx(graded["auto"] - per[sample_class.WRONG_TEST])


def test_export_csv_rows_and_statuses(graded):
    auto, per = graded["auto"], graded["lab"].points
    rows = {r["student_id"]: r for r in graded["rows"]}
    assert sorted(rows) == sorted(graded["results"])  # the sample class and lab01's CI mutants
    assert set(SAMPLE) <= set(rows)
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
    release = "\n".join(c.source for c in nbformat.read(graded["lab"].release, as_version=4).cells)
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


def test_the_sample_class_final_grades_by_the_course_policy(graded, tmp_path, monkeypatch):
    """export --scores, joined with the rest of the term (docs/policies/), through course-grades."""
    policies = ROOT / "docs" / "policies"
    scores = tmp_path / "scores.csv"
    for name, value in graded["lab"].env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("HPML_COURSE_ROOT", raising=False)
    assert cli.main(["export", "--scores", "--out", str(scores)]) == 0
    with scores.open() as f:  # the sample class's rows (the CI mutants are not on its roster)
        reader = csv.DictReader(f)
        kept = [r for r in reader if r["student_id"] in SAMPLE]
        fields = reader.fieldnames
    with scores.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)
    lab_rows = {r["student_id"]: r for r in kept}
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
