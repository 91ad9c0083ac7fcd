"""``generate-quiz``: a week's self-check questions as an autograded nbgrader quiz (``quiz_weekNN``).

Each question of the week (:mod:`autograder.classroom.quiz_bank`) becomes three cells:
the question (markdown, locked), an answer cell where the student sets
``answer_<id>`` (a letter for multiple choice, a number otherwise), and a test
cell worth one point. The answer in the source notebook is recomputed by the
question's key, checked against the digest stored in the course notebook, and
sits between ``### BEGIN SOLUTION`` markers; the test compares with the digest
(:func:`hpml_lab_utils.selfcheck.is_correct`, numbers to the question's
significant digits) between ``### BEGIN HIDDEN TESTS`` markers. The release
(nbgrader ``generate_assignment``) keeps neither.

The quiz is written as a lab of the course: ``solutions/quiz_weekNN/`` (source)
and its release in ``labs/quiz_weekNN/``; grade it with ``autograde`` like any
lab. Its items match the ``quiz*`` members of the course policy's quizzes.
"""

from __future__ import annotations

import json
from pathlib import Path

from hpml_lab_utils.selfcheck import digest, normalise

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ..labs import CourseError
from ..paths import CoursePaths
from ..pipeline.generate import generate_lab
from .quiz_bank import Question, answer_key, find_questions

LETTERS = "ABCDEFGHIJ"


def quiz_name(week: int) -> str:
    return f"quiz_week{week:02d}"


def _meta(grade_id: str, *, solution: bool = False, grade: bool = False, locked: bool = False, points=None) -> dict:
    m = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3}
    if points is not None:
        m["points"] = points
    return {"nbgrader": m}


def _answer(question: Question, value) -> str:
    """The answer as the student writes it: an option's letter, or the number."""
    if question.kind == "choice":
        matches = [i for i, o in enumerate(question.options) if normalise(o) == normalise(value)]
        if len(matches) != 1:
            raise CourseError(f"{question.id}: the key's answer matches {len(matches)} options, not exactly one")
        return repr(LETTERS[matches[0]])
    return repr(float(f"{float(value):.{question.digits + 3}g}"))


def question_cells(number: int, question: Question, value) -> list:
    """The markdown, answer and test cells of one question (``value``: the key's answer)."""
    if digest(value, question.digits, question.rtol) != question.digest:
        raise CourseError(
            f"{question.notebook} {question.id}: the key's answer does not match the digest stored in the "
            "notebook (tests/notebooks/test_course_quizzes.py says which is wrong)"
        )
    name = f"answer_{question.id}"
    if question.kind == "choice":
        options = "\n".join(f"- **{LETTERS[i]}.** {o}" for i, o in enumerate(question.options))
        how = f'Set `{name}` to the letter of your choice, for instance `{name} = "A"`.'
        prompt = f"{question.text}\n\n{options}\n\n{how}"
        check = (
            f"options = {json.dumps(list(question.options), ensure_ascii=False)}\n"
            f"assert isinstance({name}, str) and {name}.strip().upper() in {LETTERS[: len(question.options)]!r}, "
            f'"{name} must be one of the letters {LETTERS[: len(question.options)]}"\n'
            "### BEGIN HIDDEN TESTS\n"
            f"assert is_correct(options[{LETTERS!r}.index({name}.strip().upper())], {question.digest!r}), "
            '"not the right option"\n'
            "### END HIDDEN TESTS"
        )
    else:
        unit = f" (in {question.unit})" if question.unit else ""
        within = f"within {question.rtol:.0%}" if question.rtol else f"to {question.digits} significant digits"
        how = f"Set `{name}` to a number{unit}; it is checked {within}."
        prompt = f"{question.text}\n\n{how}"
        check = (
            f"assert isinstance({name}, (int, float)), " + f'"{name} must be a number"\n'
            "### BEGIN HIDDEN TESTS\n"
            f"assert is_correct({name}, {question.digest!r}, digits={question.digits}, rtol={question.rtol!r}), "
            f'"not the expected value {within}"\n'
            "### END HIDDEN TESTS"
        )
    return [
        new_markdown_cell(f"### Question {number}\n\n{prompt}", metadata=_meta(f"q_{question.id}", locked=True)),
        new_code_cell(
            f"### BEGIN SOLUTION\n{name} = {_answer(question, value)}\n### END SOLUTION",
            metadata=_meta(name, solution=True),
        ),
        new_code_cell(check, metadata=_meta(f"check_{question.id}", grade=True, locked=True, points=1)),
    ]


def quiz_notebook(week: int, questions: list[Question], key: dict) -> nbformat.NotebookNode:
    """The nbgrader source notebook of a week's quiz."""
    missing = [q.id for q in questions if q.id not in key]
    if missing:
        raise CourseError(f"week {week}: no answer key for {', '.join(missing)} (autograder/classroom/quiz_keys/)")
    intro = (
        f"# Quiz, week {week}\n\n"
        f"{len(questions)} questions from {questions[0].notebook}, one point each. Answer each in the cell under it, "
        "run the whole notebook, then validate and submit. Work out each answer; nothing here tells you whether "
        "it is right."
    )
    cells = [
        new_markdown_cell(intro, metadata=_meta("quiz_intro", locked=True)),
        new_code_cell(
            "from hpml_lab_utils.selfcheck import is_correct  # used by the checks",
            metadata=_meta("quiz_imports", locked=True),
        ),
    ]
    for number, question in enumerate(questions, 1):
        cells += question_cells(number, question, key[question.id]())
    return new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "hpml", "display_name": "Python 3 (HPML)", "language": "python"},
            "language_info": {"name": "python"},
        },
    )


def generate_quiz(week: int, paths: CoursePaths | None = None, course_dir: Path | None = None) -> tuple[Path, Path]:
    """Write ``solutions/quiz_weekNN/quiz_weekNN.ipynb`` and release it; return (source, release)."""
    paths = paths or CoursePaths.from_env()
    questions = [q for q in (find_questions(course_dir) if course_dir else find_questions()) if q.week == week]
    if not questions:
        raise CourseError(f"no self-check questions for week {week} in the course notebooks")
    name = quiz_name(week)
    source = paths.source / name / f"{name}.ipynb"
    source.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(quiz_notebook(week, questions, answer_key()), source)
    (release,) = generate_lab(name, paths)
    return source, release
