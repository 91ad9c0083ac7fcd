"""The adversarial class of lab01 graded in ONE batch beside honest students (``--jobs 2``).

The class (``autograder/sample_class/adversarial.py``: infinite loops, a kernel
that exits, memory and fork bombs, edited and deleted tests, changed points,
monkeypatched comparisons, a disk search for hidden tests, megabytes of output,
``sys.exit()``, a network attempt to 127.0.0.1) is generated from the current
solution and a fresh release, graded once for the module with the CLI under
short limits (10 s per cell, 75 s per notebook), then exported. For each
student: the expected status, no undeserved points (exact points from the
source notebook's metadata), the CSV row; and the honest students are graded
exactly as they would be alone. All of it with the local backend, and in
``make test-full`` again as a Slurm array job on a one-node cluster
(``--backend slurm``; skipped, saying why, where Slurm cannot start).
``tests/autograder/test_slurm.py`` grades a class through Slurm in ``make test``.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import html as html_lib
import json
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder import cli, labs, sample_class
from autograder.isolation import sandbox
from autograder.pipeline import feedback, nbgrader_app
from autograder.pipeline.preprocessors import hidden_test_lines
from autograder.records import StatusStore
from autograder.sample_class.adversarial import ATTACK_CELL, ATTACK_TEST, CASES, FROM_ATTACK, MAX_FORKS
from tests.autograder.lab01_class import LAB, ROOT, SOURCE, lab01_class

pytestmark = [pytest.mark.slow, pytest.mark.lab01]

HONEST = {"perfect": (), "one_wrong": (sample_class.WRONG_TEST,)}
LIMITS = {
    "cell_timeout_s": 10,
    "notebook_timeout_s": 75,
    "memory_mb": 3072,
    "max_processes": 64,
    "max_output_bytes": 200_000,
    "max_file_bytes": 64 << 20,
}


def _points() -> tuple[float, dict[str, float]]:
    """(total autograded points, points per autograded test cell), as the pipeline reads them."""
    per = {c.grade_id: c.points for c in labs.grade_cells(SOURCE) if c.autograded}
    return sum(per.values()), per


def _tests_from_attack() -> tuple[str, ...]:
    """The autograded tests that come after the attack cell (a notebook that stops there loses them all)."""
    cells = nbformat.read(SOURCE, as_version=4).cells
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells]
    _, per = _points()
    return tuple(gid for gid in ids[ids.index(ATTACK_CELL) :] if gid in per)


def expected_score(loses) -> float:
    auto, per = _points()
    if loses is None:
        return 0.0
    if loses == FROM_ATTACK:
        loses = _tests_from_attack()
        assert 0 < len(loses) < len(per), "the attack cell must sit between tests for partial credit to show"
    return auto - sum(per[t] for t in loses)


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it gets (the network student aims at it)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop.set()
        self.thread.join(2)
        self.sock.close()


def _job_processes(work: Path) -> list[int]:
    """Live processes whose environment points into the grading folder's jobs (what a worker left behind)."""
    needle = str(work / "jobs").encode()
    found = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in env.read_bytes():
                found.append(int(env.parent.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module", params=["local", pytest.param("slurm", marks=pytest.mark.full)])
def graded(request, tmp_path_factory):
    """The class graded by processes of this machine, then (where a cluster starts) as a Slurm array job."""
    backend = request.param
    if backend == "slurm":
        request.getfixturevalue("slurm_cluster")  # skips, saying why, where Slurm cannot run
    work = tmp_path_factory.mktemp(f"adversarial-{backend}")
    listener = Listener()
    env = {"HPML_SANDBOX_LIMITS": json.dumps(LIMITS), "HPML_CELL_TIMEOUT": None, "HPML_NOTEBOOK_TIMEOUT": None}
    with lab01_class(work, env | {"HPML_MAX_OUTPUT_BYTES": None}) as sample:
        paths, release, folder = sample.paths, sample.release, sample.folder
        shutil.rmtree(folder / "untouched")
        shutil.rmtree(folder / "not_json")
        files = sample_class.build_adversarial_class(
            folder, SOURCE, release, port=listener.port, search_roots=[str(work), str(ROOT)]
        )
        t0 = time.perf_counter()
        code = cli.main(["autograde", LAB, str(folder), "--jobs", "2", "--backend", backend])
        seconds = time.perf_counter() - t0
        left = _job_processes(work)
        stale = sandbox.leftovers()
        assert cli.main(["export", "--out", str(work / "grades.csv")]) == 0
        results = {r.student_id: r for r in StatusStore(paths.statuses).results(LAB)}
        rows = {r["student_id"]: r for r in csv.DictReader((work / "grades.csv").open())}
        listener.close()
        yield {
            "paths": paths,
            "results": results,
            "rows": rows,
            "code": code,
            "seconds": seconds,
            "files": files,
            "connections": listener.connections,
            "left": left,
            "stale": stale,
            "release": release,
        }


def _executed(graded, student) -> nbformat.NotebookNode:
    return nbformat.read(graded["paths"].autograded / student / LAB / f"{LAB}.ipynb", as_version=4)


def _outputs_text(nb) -> str:
    """Every output of ``nb`` as text: stream text as printed (the kernel may split one print), the rest as JSON."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            parts.append(
                ("".join(text) if isinstance(text, list) else text)
                if out.get("output_type") == "stream"
                else "\n" + json.dumps(out) + "\n"
            )
    return "".join(parts)


def test_the_batch_finishes_and_grades_everyone(graded):
    assert graded["code"] == 0
    assert sorted(graded["results"]) == sorted(list(CASES) + list(HONEST))
    assert sorted(graded["rows"]) == sorted(graded["results"])
    print(f"\nadversarial batch of {len(graded['results'])}: {graded['seconds']:.0f} s")


@pytest.mark.parametrize("student", sorted(HONEST))
def test_honest_students_graded_exactly(graded, student):
    r = graded["results"][student]
    assert r.status == "graded", r.message
    assert r.failed_tests == list(HONEST[student])
    assert r.score == pytest.approx(expected_score(HONEST[student]))
    with nbgrader_app.open_gradebook(graded["paths"]) as gb:  # the merged gradebook agrees
        sub = gb.find_submission(LAB, student)
        code_score = sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell_type == "code")
        assert code_score == pytest.approx(expected_score(HONEST[student]))


@pytest.mark.parametrize("student", sorted(CASES))
def test_status_and_no_undeserved_points(graded, student):
    case = CASES[student]
    r = graded["results"][student]
    assert r.status == case.status, f"{student} ({case.what}): {r.status}: {r.message}"
    assert r.score == pytest.approx(expected_score(case.loses)), f"{student}: {r.message}"
    _, per = _points()
    assert r.max_score == pytest.approx(sum(per.values()) + _written_points())


@pytest.mark.parametrize("student", sorted(list(CASES) + list(HONEST)))
def test_csv_row(graded, student):
    r, row = graded["results"][student], graded["rows"][student]
    assert row["lab"] == LAB
    assert row["status"] == r.status
    assert float(row["score"]) == pytest.approx(r.score)
    assert float(row["max_score"]) == pytest.approx(r.max_score)
    assert row["message"] == r.message


def _written_points() -> float:
    return sum(c.points for c in labs.grade_cells(SOURCE) if not c.autograded)


def test_timeouts_name_their_cells(graded):
    loop = graded["results"]["infinite_loop"]
    assert ATTACK_CELL in loop.timed_out_cells and ATTACK_CELL in loop.message
    assert ATTACK_TEST in loop.failed_tests
    stuck = graded["results"]["ignores_sigint"]  # the interrupt cannot stop it: the batch still goes on
    assert ATTACK_CELL in stuck.timed_out_cells and ATTACK_CELL in stuck.message
    assert "did not stop when interrupted" in stuck.message or "wall limit" in stuck.message
    assert sorted(stuck.failed_tests) == sorted(_tests_from_attack())  # the tests before it kept their points
    assert stuck.seconds < LIMITS["notebook_timeout_s"], "stuck kernel: grading waited for the hard wall limit"


def test_kernel_death_and_sys_exit(graded):
    died = graded["results"]["os_exit"]
    assert ATTACK_CELL in died.message and "kernel died" in died.message
    assert "keep their points" in died.message
    assert sorted(died.failed_tests) == sorted(_tests_from_attack())  # the tests before it kept their points
    # sys.exit() is an ordinary error in IPython: the rest of the notebook ran
    assert graded["results"]["sys_exit"].failed_tests == [ATTACK_TEST]


def test_memory_bomb_hits_the_limit(graded):
    r = graded["results"]["memory_bomb"]
    assert "MemoryError" in r.message or "memory" in r.message


def test_fork_bomb_is_bounded_and_cleaned_up(graded):
    text = _outputs_text(_executed(graded, "fork_bomb"))
    assert "fork refused after" in text, "the process limit did not stop the fork bomb"
    assert f"forked {MAX_FORKS} children" not in text
    assert graded["left"] == [], f"processes of the grading jobs still alive after the batch: {graded['left']}"
    assert graded["stale"] == ([], []), (
        f"kernel folders and cgroups of ended workers after the batch: {graded['stale']}"
    )


def test_tampering_is_reported(graded):
    results = graded["results"]
    assert "deleted" in results["deleted_tests"].message
    assert "edited" in results["edited_tests"].message
    assert "points" in results["changed_points"].message
    for student, name in (
        ("patch_np_allclose", "allclose"),
        ("patch_assert_allclose", "assert_allclose"),
        ("patch_torch_allclose", "torch.allclose"),
        ("patch_builtins_abs", "abs"),
        ("timing_method_replaced", "hpml_lab_utils.timing.Timer.__exit__ was replaced"),
    ):
        assert name in results[student].message, (student, results[student].message)


def test_no_network(graded):
    assert graded["connections"] == 0, "the network student reached a listener on 127.0.0.1"
    assert "network: no connection" in _outputs_text(_executed(graded, "network"))


def _hidden_lines_not_released(graded) -> list[str]:
    hidden = [
        line
        for cell in nbformat.read(SOURCE, as_version=4).cells
        if cell.cell_type == "code"
        for line in hidden_test_lines(cell.source)
    ]
    release = "\n".join(c.source for c in nbformat.read(graded["release"], as_version=4).cells)
    return [line for line in hidden if line not in release]


def test_student_code_cannot_read_hidden_tests(graded):
    nb = _executed(graded, "reads_hidden_tests")
    text = _outputs_text(nb)
    assert "notebooks with hidden tests found: 0" in text, text[:2000]
    hidden = _hidden_lines_not_released(graded)
    assert hidden
    student_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == ATTACK_CELL]
    leaked = [line for line in hidden if line in _outputs_text(nbformat.from_dict({"cells": student_cells}))]
    assert not leaked, f"hidden test code printed by student code: {leaked[:3]}"


def _test_cell_outputs(graded, student, grade_id):
    [cell] = [c for c in _executed(graded, student).cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell.outputs


def test_points_follow_asserts_not_stderr(graded):
    # the passing test cell wrote to stderr (kept, visible in the feedback) and kept its points
    outputs = _test_cell_outputs(graded, "warns_on_stderr", ATTACK_TEST)
    assert any(o.output_type == "stream" and o.name == "stderr" and "timings may be noisy" in o.text for o in outputs)
    assert not any(o.output_type == "error" for o in outputs)
    assert graded["results"]["warns_on_stderr"].failed_tests == []
    # the failing test cell printed nothing on stderr and still lost its points
    outputs = _test_cell_outputs(graded, "wrong_and_quiet", sample_class.WRONG_TEST)
    assert not any(o.output_type == "stream" and o.name == "stderr" for o in outputs)
    assert any(o.output_type == "error" for o in outputs)


def test_executed_cells_sources_never_reach_the_feedback(graded):
    """The attack works on the kernel (the autograded notebook holds the hidden tests, encoded), not on the feedback."""
    hidden = _hidden_lines_not_released(graded)
    text = _outputs_text(_executed(graded, "leaks_executed_cells"))
    [payload] = [line.split("leak: ", 1)[1] for line in text.splitlines() if line.startswith("leak: ")]
    assert any(line in base64.b64decode(payload).decode() for line in hidden), (
        "the attack did not read the hidden tests"
    )
    early = _executed(graded, "leaks_by_display_update").cells
    assert "nothing yet" in _outputs_text(nbformat.from_dict({"cells": early})), "the early display was rewritten"
    assert "leak: " not in _outputs_text(nbformat.from_dict({"cells": early[:-1]}))
    pages = feedback.feedback_lab(
        LAB, graded["paths"], students=["leaks_executed_cells", "leaks_by_display_update"], progress=None
    )
    for student, page in pages.items():
        assert not isinstance(page, str), page  # the reason feedback failed
        html = page.read_text()
        decoded = []
        for run in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", html):
            with contextlib.suppress(ValueError):
                decoded.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8", "replace"))
        shown = html + "\n".join(decoded)
        assert payload[:40] not in html, student
        assert not [line for line in hidden if html_lib.escape(line) in shown or line in shown], student
        assert not [line for line in hidden if html_lib.escape(line[::-1]) in html or line[::-1] in html], student
        assert "outputs of cells that ran after the first hidden test are not repeated" in html, student


def test_huge_output_is_cut(graded):
    path = graded["paths"].autograded / "huge_output" / LAB / f"{LAB}.ipynb"
    assert path.stat().st_size < 2_000_000, f"{path.stat().st_size} bytes: the output was not cut"
    assert "output cut" in _outputs_text(_executed(graded, "huge_output"))


def test_hostile_files_are_refused_with_a_message_for_that_student_alone(graded):
    results = graded["results"]
    for student, says in (
        ("links_to_classmate", "symbolic links are not followed"),
        ("links_classmate_folder", "symbolic links are not followed"),
        ("nested_json", "nested too deep"),
        ("many_cells", "cells, over the limit of"),
        ("huge_notebook", "bytes, over the limit of"),
        ("pasted_test_cell", f"the graded cell {ATTACK_TEST!r} appears twice"),
    ):
        assert says in results[student].message, (student, results[student].message)
    assert not (graded["paths"].autograded / "links_to_classmate").exists()  # never graded under that name


def test_renamed_notebook_is_accepted(graded):
    r = graded["results"]["renamed"]
    assert "accepted" in r.message and "Lab01_Benchmarking (1).ipynb" in r.message


def test_a_second_run_changes_nothing_and_grades_nothing(graded):
    paths = graded["paths"]
    folder = paths.work / "class"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HPML_GRADING_DIR", str(paths.work))
        mp.setenv("HPML_SANDBOX_LIMITS", json.dumps(LIMITS))
        t0 = time.perf_counter()
        assert cli.main(["autograde", LAB, str(folder), "--jobs", "2"]) == 0
        assert time.perf_counter() - t0 < 60, "unchanged submissions were graded again"
    again = {r.student_id: r for r in StatusStore(paths.statuses).results(LAB)}
    assert again == graded["results"]
