"""Same submission, same grade: lab01's sample class graded 10 times gets the same points every time (``make test-full``).

The class (perfect, one_wrong, untouched, not_json) is graded with
``autograde --force --jobs 2`` ten times in a row, so every run starts kernels
two at a time on the 2 cores, as a class night does. Every run must give each
student the same status, points and failed tests, and the perfect student must
keep every autograded point (lab01 has timing-based tests).
"""

from __future__ import annotations

import pytest

from autograder import cli, labs, sample_class
from autograder.records import StatusStore
from tests.autograder.lab01_class import LAB, SOURCE, lab01_class

pytestmark = [pytest.mark.slow, pytest.mark.full, pytest.mark.lab01]

REPEATS = 10


def test_ten_gradings_give_the_same_points(tmp_path):
    with lab01_class(tmp_path) as sample:
        paths, folder = sample.paths, sample.folder
        runs = []
        for _ in range(REPEATS):
            assert cli.main(["autograde", LAB, str(folder), "--force", "--jobs", "2"]) == 0
            runs.append(
                {
                    r.student_id: (r.status, r.score, tuple(r.failed_tests))
                    for r in StatusStore(paths.statuses).results(LAB)
                }
            )
    differing = [
        (i, student, run[student], runs[0][student])
        for i, run in enumerate(runs)
        for student in run
        if run[student] != runs[0][student]
    ]
    assert not differing, f"(run, student, grade, first run's grade) that changed between runs: {differing}"
    full = sum(c.points for c in labs.grade_cells(SOURCE) if c.autograded)
    status, score, failed = runs[0]["perfect"]
    assert (status, failed) == ("graded", ()) and score == pytest.approx(full), runs[0]["perfect"]
    assert runs[0]["one_wrong"][2] == (sample_class.WRONG_TEST,)
