"""autograder.grading.classify: a worker's outcome to a status and a reason, checked without any process."""

from __future__ import annotations

import pytest

from autograder.grading.classify import scored_outcome, unscored_outcome
from autograder.grading.job import Progress, WorkerResult
from autograder.limits import Limits
from autograder.records import (
    GRADED,
    GRADER_ERROR,
    KERNEL_DIED,
    LATE,
    MEMORY_LIMIT,
    TAMPERED,
    TIMED_OUT,
)

LIMITS = Limits(cell_timeout_s=10, notebook_timeout_s=60)
IDLE = Progress()


def unscored(result, progress=IDLE, *, killed=False, returncode=0, ran_s=1.0):
    return unscored_outcome(
        result, progress, LIMITS, killed=killed, returncode=returncode, ran_s=ran_s, log_ref="(log)"
    )


def test_a_finished_notebook_is_scored():
    assert unscored(WorkerResult(success=True)) is None


def test_killed_at_the_wall_limit_names_the_cell_it_was_in():
    out = unscored(None, Progress(cell="answer_slow"), killed=True, returncode=-9, ran_s=95)
    assert (out.status, out.score, out.timed_out_cells) == (TIMED_OUT, 0.0, ["answer_slow"])
    assert "wall limit of 60 s" in out.message and "answer_slow" in out.message


@pytest.mark.parametrize(
    ("returncode", "status", "score"),
    [(-9, MEMORY_LIMIT, 0.0), (1, GRADER_ERROR, None), (None, GRADER_ERROR, None)],
)
def test_a_worker_without_a_result(returncode, status, score):
    out = unscored(None, returncode=returncode)
    assert (out.status, out.score) == (status, score)
    assert "(log)" in out.message


def test_kernel_deaths_are_told_apart():
    died = WorkerResult(success=False, kernel_died=True, dead_cell="answer_x")
    assert unscored(died).status == KERNEL_DIED and "answer_x" in unscored(died).message
    oom = WorkerResult(success=False, kernel_died=True, dead_cell="answer_x", kernel=[{"signal": 9}])
    assert unscored(oom).status == MEMORY_LIMIT and "signal 9" in unscored(oom).message
    # a GPU kernel's memory cgroup counts the OOM kill it made, whatever exit the kernel reported
    cgroup = WorkerResult(success=False, kernel_died=True, dead_cell="answer_x", kernel=[{"oom_kills": 1}])
    assert unscored(cgroup).status == MEMORY_LIMIT
    assert (
        scored_outcome(
            WorkerResult(success=True, stopped={"why": "died", "cell": "c"}, kernel=[{"exit_code": 1, "oom_kills": 2}]),
            LIMITS,
            0.0,
        ).status
        == MEMORY_LIMIT
    )
    memory_error = WorkerResult(success=False, kernel_died=True, memory_error_cells=["answer_x"])
    assert unscored(memory_error).status == MEMORY_LIMIT
    over_wall = WorkerResult(success=False, kernel_died=True, dead_cell="answer_x")
    assert unscored(over_wall, ran_s=LIMITS.notebook_timeout_s).status == TIMED_OUT
    killed_for = WorkerResult(success=False, kernel=[{"killed_for": "notebook_timeout"}])
    assert unscored(killed_for).status == TIMED_OUT


def test_a_cell_that_ignores_the_interrupt_times_out_and_an_unknown_failure_is_the_graders():
    stuck = WorkerResult(success=False, timed_out_cells=["answer_a", "answer_a"])
    out = unscored(stuck)
    assert (out.status, out.timed_out_cells) == (TIMED_OUT, ["answer_a"]) and "10 s" in out.message
    broken = unscored(WorkerResult(success=False, error="KeyError: 'grade_id'"))
    assert (broken.status, broken.score) == (GRADER_ERROR, None) and "KeyError" in broken.message


def test_scored_statuses_and_their_notes():
    assert scored_outcome(WorkerResult(success=True), LIMITS, 0.0).status == GRADED
    late = scored_outcome(WorkerResult(success=True), LIMITS, 7200.0)
    assert late.status == LATE and "2.0 h after the due date" in late.message
    slow = scored_outcome(WorkerResult(success=True, timed_out_cells=["answer_b"]), LIMITS, 7200.0)
    assert slow.status == TIMED_OUT and "answer_b" in slow.message and "due date" in slow.message
    died = scored_outcome(WorkerResult(success=True, stopped={"why": "died", "cell": "answer_c"}), LIMITS, 0.0)
    assert died.status == KERNEL_DIED and "keep their points" in died.message
    oom = WorkerResult(success=True, stopped={"why": "died", "cell": "c"}, kernel=[{"signal": 6}])
    assert scored_outcome(oom, LIMITS, 0.0).status == MEMORY_LIMIT
    wall = WorkerResult(success=True, stopped={"why": "wall", "cell": "answer_d"}, timed_out_cells=["answer_d"])
    out = scored_outcome(wall, LIMITS, 0.0)
    assert out.status == TIMED_OUT and "wall limit of 60 s in answer_d" in out.message
    assert "cell limit" not in out.message  # the cell interrupted at the wall limit is not also over its own
    tampered = WorkerResult(success=True, tampering=[f"change {i}" for i in range(7)], memory_error_cells=["x"])
    out = scored_outcome(tampered, LIMITS, 0.0)
    assert out.status == TAMPERED and "MemoryError in x" in out.message and out.message.endswith(" ...")


def test_results_round_trip_through_the_job_folder(tmp_path):
    result = WorkerResult(success=True, stopped={"why": "stuck", "cell": "a"}, kernel=[{"signal": 9}], seconds=1.5)
    result.write(tmp_path)
    assert WorkerResult.read(tmp_path) == result
    Progress(cell="a", index=3, kernel_pid=42, timed_out=["a"]).write(tmp_path)
    assert Progress.read(tmp_path).kernel_pid == 42
    assert WorkerResult.read(tmp_path / "missing") is None and Progress.read(tmp_path / "missing") == Progress()
