"""``generate-quiz``: a week's self-check questions as an nbgrader quiz, keys hidden, graded by the autograder."""

from __future__ import annotations

import re
from pathlib import Path

from hpml_lab_utils.selfcheck import normalise

import nbformat
import pytest

from autograder.classroom import quiz
from autograder.classroom.quiz_bank import answer_key, find_questions
from autograder.grading import autograde
from autograder.pipeline import validate

ROOT = Path(__file__).resolve().parents[2]
WEEK = 2  # multiple choice and numbers with several significant digits


@pytest.fixture
def week_quiz(toy_course):
    source, release = quiz.generate_quiz(WEEK, toy_course, ROOT / "course")
    questions = [q for q in find_questions() if q.week == WEEK]
    return {"paths": toy_course, "source": source, "release": release, "questions": questions}


def _answers(questions, wrong: str | None = None) -> dict[str, str]:
    """Python source of each answer as a student would type it; ``wrong``: that question answered wrongly."""
    key, out = answer_key(), {}
    for q in questions:
        value = key[q.id]()
        if q.kind == "choice":
            right = next(i for i, o in enumerate(q.options) if normalise(o) == normalise(value))
            letter = quiz.LETTERS[(right + 1) % len(q.options) if q.id == wrong else right]
            out[q.id] = f"answer_{q.id} = {letter.lower()!r}  # a lower-case letter is accepted"
        else:
            typed = float(f"{value:.3g}") if q.id != wrong else value * 1.5  # rounded to 3 digits, as asked
            out[q.id] = f"answer_{q.id} = {typed!r}"
    return out


def _hand_in(release: Path, answers: dict[str, str], folder: Path) -> Path:
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.startswith("answer_"):
            cell.source = answers[grade_id.removeprefix("answer_")]
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / release.name)
    return folder


@pytest.mark.slow
def test_the_release_holds_no_answer_and_no_digest(week_quiz):
    text = week_quiz["release"].read_text()
    source = week_quiz["source"].read_text()
    assert len(week_quiz["questions"]) >= 4
    for q in week_quiz["questions"]:
        assert q.digest in source and q.digest not in text, f"{q.id}: its digest reached the release"
        (line,) = re.findall(rf"answer_{q.id} = [^\\]+", source)  # the key's line in the source
        assert line not in text, f"{q.id}: the answer reached the release"
        assert f"answer_{q.id}" in text
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text


@pytest.mark.slow
def test_the_quiz_validates_and_grades_right_and_wrong_answers(week_quiz, tmp_path):
    paths, questions = week_quiz["paths"], week_quiz["questions"]
    name = quiz.quiz_name(WEEK)
    report = validate.validate_lab(name, paths)
    assert report.ok, report.problems
    assert report.test_cells == len(questions)
    numeric = next(q.id for q in questions if q.kind == "number")
    choice = next(q.id for q in questions if q.kind == "choice")
    subs = tmp_path / "subs"
    _hand_in(week_quiz["release"], _answers(questions), subs / "right")
    _hand_in(week_quiz["release"], _answers(questions, wrong=numeric), subs / "wrong_number")
    _hand_in(week_quiz["release"], _answers(questions, wrong=choice), subs / "wrong_choice")
    results = {r.student_id: r for r in autograde.autograde_class(name, subs, paths, progress=None, jobs=2)}
    n = len(questions)
    assert (results["right"].score, results["right"].max_score) == (n, n)
    assert results["wrong_number"].score == n - 1 and f"check_{numeric}" in results["wrong_number"].message
    assert results["wrong_choice"].score == n - 1 and f"check_{choice}" in results["wrong_choice"].message
    # the failure message says which question, never the answer
    assert not re.search(r"expected .*\d", results["wrong_number"].message)


def test_every_week_makes_a_quiz_with_one_check_per_question():
    """All 14 weeks: every key answers its question (one option exactly, the stored digest), no nbgrader run."""
    questions, key = find_questions(), answer_key()
    weeks = sorted({q.week for q in questions})
    assert weeks == list(range(1, 15))
    for week in weeks:
        mine = [q for q in questions if q.week == week]
        nb = quiz.quiz_notebook(week, mine, key)
        checks = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert len(checks) == len(mine) and all(c.metadata["nbgrader"]["points"] == 1 for c in checks)
