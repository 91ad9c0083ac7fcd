"""Every self-check question in course/*.ipynb stores the digest of the right answer.

A question is a code cell that starts with ``# selfcheck: <id>`` and calls
``choice(question, options, expected_digest, ...)`` or
``number(question, expected_digest, digits=3, ...)`` (hpml_lab_utils.selfcheck).
The answer key (``autograder/classroom/quiz_keys/weekNN.py``, also the key of
``generate-quiz``) recomputes each answer from the data in the question, by its
formula (never a typed final number where a formula exists), and the test
checks ``digest(answer, digits)`` against the digest stored in the notebook.
A wrong key in a notebook, a question without a key, or a key whose question
was deleted fails here.
"""

from __future__ import annotations

from hpml_lab_utils.selfcheck import digest, normalise

import pytest

from autograder.classroom.quiz_bank import answer_key, find_questions

ANSWER_KEY = answer_key()


QUESTIONS = find_questions()


def test_there_are_questions_and_ids_are_unique():
    assert QUESTIONS, "no self-check questions found in course/*.ipynb"
    ids = [q.id for q in QUESTIONS]
    assert len(ids) == len(set(ids)), f"duplicate self-check ids: {sorted({i for i in ids if ids.count(i) > 1})}"


def test_every_notebook_has_4_to_8_questions():
    per_notebook: dict[str, int] = {}
    for q in QUESTIONS:
        per_notebook[q.notebook] = per_notebook.get(q.notebook, 0) + 1
    for name, count in per_notebook.items():
        assert 4 <= count <= 8, f"{name} has {count} self-check questions; the course asks for 4 to 8"


def test_every_question_has_a_key():
    missing = [f"{q.notebook}:{q.id}" for q in QUESTIONS if q.id not in ANSWER_KEY]
    assert not missing, f"self-check questions without an answer key in this test: {missing}"


def test_every_key_of_a_written_week_has_its_question():
    weeks = {q.id.split("_")[0] for q in QUESTIONS}
    stale = [k for k in ANSWER_KEY if k.split("_")[0] in weeks and k not in {q.id for q in QUESTIONS}]
    assert not stale, f"answer keys whose question is gone from the notebooks: {stale}"


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: f"{q.notebook}:{q.id}")
def test_stored_digest_is_the_recomputed_answer(question):
    if question.id not in ANSWER_KEY:
        pytest.skip("no key (reported by test_every_question_has_a_key)")
    answer = ANSWER_KEY[question.id]()
    assert question.digest == digest(answer, question.digits, question.rtol), (
        f"{question['notebook']} cell {question['cell']} ({question['id']}): the stored digest is not that of "
        f"the recomputed answer; make it with hpml_lab_utils.selfcheck.digest(answer)"
    )
    if question.kind == "choice":
        matching = [o for o in question.options if normalise(o) == normalise(answer)]
        assert len(matching) == 1, f"{question['id']}: exactly one option must be the answer, found {len(matching)}"
