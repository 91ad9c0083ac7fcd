"""The Slurm backend: how Slurm's answers are read (no cluster needed), then real grading on a one-node cluster.

The cluster tests start Debian's slurm-wlm on this machine (``deploy/slurm/cluster.py``, as root; ``make
slurm-tools`` installs it) and grade the sample class of lab01 through an array job: the same points and
statuses as the local backend. ``tests/autograder/test_adversarial.py`` grades the adversarial class through
it too, and a submission over a small ``--mem`` ends as "memory limit" through the node's cgroups.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import nbformat
import pytest

from autograder import cli
from autograder.grading import slurm, slurm_task
from autograder.limits import Limits
from autograder.paths import CoursePaths
from autograder.records import GRADER_ERROR, MEMORY_LIMIT, TIMED_OUT, StatusStore
from tests.autograder.lab01_class import LAB, lab01_class

SCONTROL = """\
JobId=41 ArrayJobId=40 ArrayTaskId=0 JobName=hpml-lab01 JobState=COMPLETED Reason=None ExitCode=0:0 Partition=debug
JobId=42 ArrayJobId=40 ArrayTaskId=1 JobName=hpml-lab01 JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125
JobId=43 ArrayJobId=40 ArrayTaskId=2 JobName=hpml-lab01 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15
JobId=44 ArrayJobId=40 ArrayTaskId=3 JobName=hpml-lab01 JobState=RUNNING Reason=None ExitCode=0:0
JobId=40 ArrayJobId=40 ArrayTaskId=4-9%2 JobName=hpml-lab01 JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0
"""


def test_scontrol_lines_become_task_states():
    states = slurm.parse_scontrol(SCONTROL)
    assert sorted(states) == list(range(10))
    assert (states[0].state, states[0].exit_code) == ("COMPLETED", 0)
    assert states[1].state == "OUT_OF_MEMORY" and states[2].state == "TIMEOUT"
    assert states[7].state == "PENDING" and states[7].reason == "JobArrayTaskLimit"


def test_sacct_lines_become_task_states():
    states = slurm.parse_sacct("40_0|COMPLETED|0:0\n40_1|CANCELLED by 0|0:0\n40_2|FAILED|1:0\n40_[3-4]|PENDING|0:0\n")
    assert [states[i].state for i in range(5)] == ["COMPLETED", "CANCELLED", "FAILED", "PENDING", "PENDING"]
    assert states[2].exit_code == 1


@pytest.mark.parametrize(
    ("state", "returncode", "killed"),
    [
        (slurm.TaskState("COMPLETED", 0), 0, False),
        (slurm.TaskState("FAILED", 1), 1, False),
        (slurm.TaskState("FAILED", 0, signal=9), -9, False),
        (slurm.TaskState("OUT_OF_MEMORY", 0, 125), -9, False),  # the classifier reads -9 as a memory kill
        (slurm.TaskState("TIMEOUT", 0, 15), None, True),  # the wall limit
        (slurm.TaskState("NODE_FAIL"), None, False),
        (slurm.TaskState("CANCELLED"), None, False),
    ],
)
def test_how_a_task_ended_maps_to_a_worker_end(state, returncode, killed):
    end = slurm.ending(state)
    assert (end.returncode, end.killed) == (returncode, killed)


def test_the_labs_limits_become_the_task_resources():
    limits = Limits(notebook_timeout_s=600, memory_mb=2048)
    # 600 s + the local backend's 30 s grace + 60 s to start: 11.5 min, rounded up
    assert slurm.resources(limits, 2) == ["--time=12", f"--mem={2048 + slurm.WORKER_MEMORY_MB}M", "--cpus-per-task=2"]


def test_course_settings_come_from_the_environment_unless_given(monkeypatch):
    monkeypatch.setenv("HPML_SLURM_PARTITION", "gpu")
    monkeypatch.setenv("HPML_SLURM_OPTIONS", "--qos=short --nice=10")
    assert slurm.SlurmOptions.from_env() == slurm.SlurmOptions("gpu", "", ("--qos=short", "--nice=10"))
    assert slurm.SlurmOptions.from_env("cpu", "hpml", ["--exclusive"]).extra == ("--exclusive",)


def test_gpu_request_comes_from_the_command_line_then_the_course_then_the_default(monkeypatch):
    assert slurm.SlurmOptions.from_env().gpu == ("--gres=gpu:1",)
    monkeypatch.setenv("HPML_SLURM_GPU_OPTIONS", "--partition=gpu --gres=gpu:a100:1")
    assert slurm.SlurmOptions.from_env().gpu == ("--partition=gpu", "--gres=gpu:a100:1")
    assert slurm.SlurmOptions.from_env(gpu=["--gpus-per-task=1"]).gpu == ("--gpus-per-task=1",)


def test_a_task_hands_its_kernel_the_gpu_slurm_allocated():
    assert slurm_task.allocated_gpu({"SLURM_JOB_GPUS": "3,5", "CUDA_VISIBLE_DEVICES": "0,1"}) == "3"
    assert slurm_task.allocated_gpu({"CUDA_VISIBLE_DEVICES": "2"}) == "2"
    assert slurm_task.allocated_gpu({"CUDA_VISIBLE_DEVICES": ""}) is None
    assert slurm_task.allocated_gpu({}) is None


# --------------------------------------------------------------------------- on a real cluster


def _held_array(paths: CoursePaths, gpu: bool, options: slurm.SlurmOptions) -> str:
    """A one-task array of lab04 submitted on hold: what ``scontrol`` says it asked for."""
    job_id = slurm.submit("lab04_cuda_numba", [{}], paths, Limits(), 1, 1, options, gpu)
    try:
        return subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True).stdout
    finally:
        slurm.cancel(job_id)


@pytest.mark.slow
def test_a_gpu_labs_array_asks_slurm_for_a_gpu_per_task(slurm_cluster, tmp_path, monkeypatch):
    """Read back from scontrol on the one-node cluster (two stand-in GPUs): --gres=gpu:1 per task for a GPU lab,
    the course's own request where it sets one, nothing for a CPU lab."""
    monkeypatch.setenv("HPML_GRADING_DIR", str(tmp_path))
    paths = CoursePaths.from_env()
    held = slurm.SlurmOptions(extra=("--hold",))
    assert "gres:gpu:1" in _held_array(paths, True, held)
    assert "gres:gpu" not in _held_array(paths, False, held)
    own = slurm.SlurmOptions(extra=("--hold",), gpu=("--gres=gpu:2",))
    assert "gres:gpu:2" in _held_array(paths, True, own)


def only_perfect_with(code: str):
    """An edit of the sample class: only the perfect student, with ``code`` as their first code cell."""

    def edit(folder):
        path = folder / "perfect" / f"{LAB}.ipynb"
        nb = nbformat.read(path, as_version=4)
        nb.cells.insert(1, nbformat.v4.new_code_cell(code))
        nbformat.write(nb, path)
        for other in ("one_wrong", "untouched", "not_json"):
            shutil.rmtree(folder / other)

    return edit


def _grade(work, backend: str, extra: list[str] = (), edit=None, again: bool = False) -> dict:
    with lab01_class(work) as sample:
        if edit:
            edit(sample.folder)
        command = ["autograde", LAB, str(sample.folder), "--jobs", "2", "--backend", backend, *extra]
        t0 = time.perf_counter()
        code = cli.main(command)
        seconds = time.perf_counter() - t0
        results = {r.student_id: r for r in StatusStore(sample.paths.statuses).results(LAB)}
        rerun = None
        if again:  # the same command once more: nothing changed, nothing is graded again
            assert cli.main(command) == 0
            rerun = {r.student_id: r for r in StatusStore(sample.paths.statuses).results(LAB)}
        return {"code": code, "results": results, "seconds": seconds, "paths": sample.paths, "rerun": rerun}


@pytest.fixture(scope="module")
def sample_both_ways(slurm_cluster, tmp_path_factory):
    return {b: _grade(tmp_path_factory.mktemp(f"sample-{b}"), b, again=b == "slurm") for b in ("local", "slurm")}


@pytest.mark.slow
def test_the_sample_class_grades_the_same_through_slurm(sample_both_ways):
    local, through = sample_both_ways["local"], sample_both_ways["slurm"]
    print(f"sample class: local {local['seconds']:.1f} s, slurm {through['seconds']:.1f} s")
    assert through["code"] == 0 and sorted(through["results"]) == sorted(local["results"])
    for sid, mine in local["results"].items():
        other = through["results"][sid]
        assert (other.status, other.score, other.failed_tests) == (mine.status, mine.score, mine.failed_tests), sid
    assert not list((through["paths"].work / "jobs" / LAB).glob("*/result.json")), "job folders left behind"
    assert through["rerun"] == through["results"]  # re-running is idempotent: the same records, not re-graded


@pytest.mark.slow
def test_a_task_over_its_memory_is_a_memory_limit_through_cgroups(slurm_cluster, tmp_path):
    """A cell that holds 600 MB in a task given 400 MB: the node's cgroup kills it, the student gets memory limit."""

    hog = only_perfect_with("import numpy as np\n_hog = np.ones(600 * 2**20 // 8)")
    run = _grade(tmp_path, "slurm", ["--sbatch-option=--mem=400M"], edit=hog)
    result = run["results"]["perfect"]
    assert result.status == MEMORY_LIMIT, result.message
    assert result.status not in (GRADER_ERROR, TIMED_OUT)


@pytest.mark.slow
def test_a_task_that_ends_without_grading_is_a_grader_error_that_says_how(monkeypatch):
    """Cancelled while pending (never started) or lost: reported with Slurm's state, never silently missing."""
    answers = iter(
        [
            {0: slurm.TaskState("PENDING", reason="Resources"), 1: slurm.TaskState("RUNNING")},
            {0: slurm.TaskState("CANCELLED", reason="None"), 1: slurm.TaskState("COMPLETED", 0)},
        ]
    )
    monkeypatch.setattr(slurm, "query", lambda job_id: next(answers))
    ends = {}
    slurm.wait_for_tasks("7", ["a", "b"], lambda task: None, lambda task, end: ends.setdefault(task, end), 0)
    assert ends["a"].unexpected == "its Slurm task ended CANCELLED before the grading finished, or never started"
    assert ends["b"].unexpected == "" and ends["b"].returncode == 0
    from autograder.grading.classify import unscored_outcome
    from autograder.grading.job import Progress

    outcome = unscored_outcome(
        None, Progress(), Limits(), killed=False, returncode=None, ran_s=0, ended_as=ends["a"].unexpected
    )
    assert outcome.status == GRADER_ERROR and "CANCELLED" in outcome.message and "next run" in outcome.message


@pytest.mark.slow
def test_ctrl_c_cancels_the_array_and_records_nothing_unfinished(slurm_cluster, tmp_path):
    """A notebook that sleeps, an interrupt while its task runs: the array is cancelled, the student not recorded."""
    with lab01_class(tmp_path) as sample:
        only_perfect_with("import time\ntime.sleep(300)")(sample.folder)
        command = [sys.executable, "-m", "autograder", "autograde", LAB, str(sample.folder), "--backend", "slurm"]
        proc = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            queue = subprocess.run(
                ["squeue", "-h", "-n", f"hpml-{LAB}", "-t", "RUNNING"], capture_output=True, text=True
            )
            if queue.stdout.strip():
                break
            time.sleep(0.5)
        assert queue.stdout.strip(), "the grading task never started"
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0].decode(errors="replace")
        assert proc.returncode == 130, out
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            left = subprocess.run(["squeue", "-h", "-n", f"hpml-{LAB}"], capture_output=True, text=True).stdout
            if not left.strip():
                break
            time.sleep(0.5)
        assert not left.strip(), f"the array is still queued after Ctrl-C: {left}"
        assert StatusStore(sample.paths.statuses).get(LAB, "perfect") is None
