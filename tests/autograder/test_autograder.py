"""Unit tests of the autograder CLI and its parts (``autograder/``), on a toy course in a temporary folder.

Fast tests need no kernel. The few marked ``slow`` grade the toy lab through the
real nbgrader (about 2 s per notebook).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
import sqlalchemy
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder import cli, labs, sample_class
from autograder.classroom.policy import DEFAULT_POLICY, load_policy
from autograder.grading import autograde, scheduler
from autograder.grading.submissions import InvalidNotebook, discover, extract_zip, normalize_stem, read_notebook, unwrap
from autograder.isolation import processes
from autograder.lab_settings import Lab, all_labs, limits_for, limits_table
from autograder.paths import CoursePaths
from autograder.pipeline import export, feedback, generate, gradebook, nbgrader_app
from autograder.pipeline.kernels import KernelMissing, ensure_kernels
from autograder.pipeline.nbgrader_app import open_gradebook
from autograder.pipeline.preprocessors import CleanReleaseMetadata, RedactTracebacks
from autograder.records import (
    CSV_COLUMNS,
    GRADED,
    GRADER_ERROR,
    INVALID_NOTEBOOK,
    KERNEL_DIED,
    TAMPERED,
    GradeResult,
    StatusStore,
    write_csv,
)
from tests.autograder.toy_course import TOY, grade_meta, toy_notebook

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


# --------------------------------------------------------------------------- argument parsing


def test_parser_subcommands_and_options():
    parse = cli.build_parser().parse_args
    assert parse(["generate"]).labs == []
    assert parse(["generate", "lab01_benchmarking", "lab02"]).labs == ["lab01_benchmarking", "lab02"]
    a = parse(["autograde", "lab01_benchmarking", "subs.zip"])
    assert (a.command, a.lab, a.submissions) == ("autograde", "lab01_benchmarking", "subs.zip")
    assert parse(["export"]).out is None
    assert parse(["export", "--out", "g.csv"]).out == "g.csv"
    assert parse(["--grading-dir", "/x", "demo"]).grading_dir == "/x"
    assert parse(["demo", "--grading-dir", "/y"]).grading_dir == "/y"
    assert parse(["--grading-dir", "/x", "feedback", "lab01_benchmarking"]).grading_dir == "/x"
    assert parse(["feedback", "lab01_benchmarking", "--student", "a", "--student", "b"]).student == ["a", "b"]


@pytest.mark.parametrize("argv", [[], ["autograde", "lab01_benchmarking"], ["frobnicate"]])
def test_parser_rejects_incomplete_commands(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(argv)
    assert exc.value.code == 2


@pytest.mark.slow
def test_module_entry_point_prints_help():
    proc = subprocess.run([sys.executable, "-m", "autograder", "--help"], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    for command in ("generate", "validate", "autograde", "feedback", "export", "demo"):
        assert command in proc.stdout


def test_unknown_lab_is_a_clean_error(toy_course, capsys):
    assert cli.main(["generate", "no_such_lab"]) == 2
    err = capsys.readouterr().err
    assert "no lab 'no_such_lab'" in err and TOY in err


# --------------------------------------------------------------------------- configuration


def test_config_paths_follow_environment(toy_course, tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.paths import CONFIG_FILE

    raw = PyFileConfigLoader(CONFIG_FILE.name, path=str(CONFIG_FILE.parent)).load_config()
    work = tmp_path / "work"
    for cfg in (raw, nbgrader_app.load_config(toy_course)):
        cd = cfg.CourseDirectory
        assert cd.root == str(tmp_path / "course")
        assert cd.source_directory == "solutions" and cd.release_directory == "labs"
        for key in ("submitted_directory", "autograded_directory", "feedback_directory"):
            assert Path(cd[key]).parent == work, key
        assert cd.db_url == f"sqlite:///{work / 'gradebook.db'}"
    assert toy_course.statuses.parent == toy_course.gradebook.parent == work


def test_default_grading_dir_is_the_ignored_work_folder(monkeypatch):
    monkeypatch.delenv("HPML_GRADING_DIR", raising=False)
    monkeypatch.delenv("HPML_COURSE_ROOT", raising=False)
    paths = CoursePaths.from_env()
    assert paths.root == ROOT
    assert paths.work == ROOT / "autograder" / "work"
    assert "autograder/work/" in (ROOT / ".gitignore").read_text()


def test_config_execution_and_feedback_settings(toy_course):
    cfg = nbgrader_app.load_config(toy_course)
    assert 0 < cfg.Execute.timeout <= 600
    assert cfg.Execute.interrupt_on_timeout is True
    assert cfg.OverwriteCells.add_missing_cells is True
    names = [p.__name__ for p in cfg.GenerateFeedback.preprocessors]
    assert "ClearHiddenTests" in names
    assert names.index("RedactTracebacks") < names.index("ClearHiddenTests")
    assert "CleanReleaseMetadata" in [p.__name__ for p in cfg.GenerateAssignment.preprocessors]


def test_missing_kernel_says_run_make_setup(tmp_path):
    nb = new_notebook(
        metadata={"kernelspec": {"name": "no-such-kernel-xyz", "display_name": "x", "language": "python"}}
    )
    path = tmp_path / "k.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(KernelMissing, match="make setup"):
        ensure_kernels([path])


# --------------------------------------------------------------------------- submissions


def _nb_text() -> str:
    return nbformat.writes(new_notebook(cells=[new_code_cell("x = 1")]))


def test_normalize_stem_variants():
    for variant in (
        "lab01_benchmarking",
        "Lab01_Benchmarking",
        "lab01_benchmarking (1)",
        "lab01_benchmarking-Copy1",
        "Lab01 Benchmarking",
        "lab01-benchmarking copy",
        "lab01_benchmarking (2) (1)",
    ):
        assert normalize_stem(variant) == "lab01_benchmarking", variant


def test_discover_picks_the_lab_notebook_and_its_variants(tmp_path):
    lab = "lab01_benchmarking"
    subs = tmp_path / "subs"
    _write(subs / "alice" / f"{lab}.ipynb", _nb_text())
    _write(subs / "alice" / ".ipynb_checkpoints" / f"{lab}-checkpoint.ipynb", _nb_text())
    _write(subs / "alice" / "scratch.ipynb", _nb_text())
    _write(subs / "bob" / "Lab01_Benchmarking (1).ipynb", _nb_text())
    _write(subs / "carol" / "work" / f"{lab}-Copy1.ipynb", _nb_text())
    _write(subs / "dave" / "my_submission.ipynb", _nb_text())
    _write(subs / "erin" / "notes.ipynb", _nb_text())
    _write(subs / "erin" / "other.ipynb", _nb_text())
    _write(subs / "frank" / "README.txt", "nothing here")
    _write(subs / "__MACOSX" / "alice" / f"._{lab}.ipynb", b"\x00\x05")
    _write(subs / "bad name!" / f"{lab}.ipynb", _nb_text())
    found = {s.student_id: s for s in discover(subs, [lab])}
    assert sorted(found) == ["alice", "bad name!", "bob", "carol", "dave", "erin", "frank"]
    assert found["alice"].notebooks[lab] == subs / "alice" / f"{lab}.ipynb" and not found["alice"].problem
    assert found["alice"].note == ""  # scratch.ipynb is not named like the lab: not a candidate
    assert found["bob"].notebooks[lab].name == "Lab01_Benchmarking (1).ipynb"
    assert "accepted" in found["bob"].note
    assert found["carol"].notebooks[lab] == subs / "carol" / "work" / f"{lab}-Copy1.ipynb"
    assert found["dave"].notebooks[lab].name == "my_submission.ipynb"
    assert not found["erin"].notebooks and "no notebook named like" in found["erin"].problem
    assert not found["frank"].notebooks and "no notebook found" in found["frank"].problem
    assert "not a usable student id" in found["bad name!"].problem


def test_zip_of_submissions_with_wrapper_folder(tmp_path):
    lab = "lab01_benchmarking"
    zpath = tmp_path / "class.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr(f"submissions/alice/{lab}.ipynb", _nb_text())
        zf.writestr(f"submissions/bob/{lab} (1).ipynb", _nb_text())
        zf.writestr(f"__MACOSX/submissions/alice/._{lab}.ipynb", "junk")
    extracted = extract_zip(zpath, tmp_path / "x")
    assert extracted.refused == {}
    found = {s.student_id: s for s in discover(extracted.root, [lab])}
    assert sorted(found) == ["alice", "bob"]
    assert all(s.notebooks[lab].exists() for s in found.values())


def test_nbgrader_submitted_folder_with_one_student_is_not_mistaken_for_a_wrapper(tmp_path):
    """``nbgrader collect`` of a class where one student handed in: ``submitted/<student>/<lab>/<lab>.ipynb``."""
    lab = "lab01_benchmarking"
    _write(tmp_path / "submitted" / "alice" / lab / f"{lab}.ipynb", _nb_text())
    _write(tmp_path / "wrapped" / "submissions" / "alice" / f"{lab}.ipynb", _nb_text())
    assert unwrap(tmp_path / "submitted", lab) == tmp_path / "submitted"
    assert [s.student_id for s in discover(unwrap(tmp_path / "submitted", lab), [lab])] == ["alice"]
    assert unwrap(tmp_path / "wrapped", lab) == tmp_path / "wrapped" / "submissions"  # a wrapper still unwraps


@pytest.mark.parametrize(
    "content, reason",
    [
        ('{"cells": [', "invalid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        ("[1, 2, 3]", "not a Jupyter notebook"),
        ('{"cells": [], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}', "format 3"),
    ],
)
def test_read_notebook_rejects_garbage(tmp_path, content, reason):
    path = _write(tmp_path / "x.ipynb", content)
    with pytest.raises(InvalidNotebook, match=reason):
        read_notebook(path)


def test_read_notebook_accepts_a_notebook(tmp_path):
    assert read_notebook(_write(tmp_path / "ok.ipynb", _nb_text())).cells[0].source == "x = 1"


def test_invalid_json_submission_gets_status_invalid_notebook(toy_course, tmp_path):
    bad = _write(tmp_path / "subs" / "mallory" / f"{TOY}.ipynb", nbformat.writes(toy_notebook())[:200])
    result = autograde.grade_one(TOY, "mallory", bad, paths=toy_course)
    assert result.status == INVALID_NOTEBOOK
    assert result.score == 0 and result.max_score == 6
    assert "invalid JSON" in result.message
    missing = autograde.grade_one(TOY, "nobody", None, paths=toy_course)
    assert missing.status == INVALID_NOTEBOOK and "no notebook found" in missing.message


# --------------------------------------------------------------------------- records and export


def test_status_store_round_trip(tmp_path):
    store = StatusStore(tmp_path / "statuses.json")
    store.record(GradeResult("bob", GRADED, 3.0, 6.0, "failed: test_add", lab=TOY, failed_tests=["test_add"]))
    store.record(GradeResult("al", INVALID_NOTEBOOK, 0.0, 6.0, "invalid JSON", lab=TOY))
    store.save()
    again = StatusStore(tmp_path / "statuses.json")
    assert [r.student_id for r in again.results(TOY)] == ["al", "bob"]
    assert again.get(TOY, "bob") == store.get(TOY, "bob")
    assert not list(tmp_path.glob(".statuses.*")), "temporary file left behind"


def test_csv_export_columns_and_statuses(toy_course):
    store = StatusStore(toy_course.statuses)
    store.record(GradeResult("ann", INVALID_NOTEBOOK, 0.0, 6.0, "x.ipynb is not a notebook: invalid JSON", lab=TOY))
    store.record(GradeResult("ben", GRADER_ERROR, None, 6.0, "kernel died", lab=TOY))
    store.record(GradeResult("cat", GRADED, 0.0, 6.0, "failed: test_add, test_average_throughput", lab=TOY))
    store.save()
    out = toy_course.work / "grades.csv"
    assert cli.main(["export", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert tuple(rows[0].keys()) == CSV_COLUMNS == ("student_id", "lab", "score", "max_score", "status", "message")
    by = {r["student_id"]: r for r in rows}
    assert by["ann"]["status"] == "invalid notebook" and by["ann"]["score"] == "0"
    assert by["ben"]["status"] == "grader error" and by["ben"]["score"] == ""
    assert by["cat"]["status"] == "graded" and by["cat"]["score"] == "0"
    # a failed grading and a real zero are told apart by the status column
    assert by["ann"]["status"] != by["cat"]["status"]
    assert {r["lab"] for r in rows} == {TOY} and all(r["max_score"] == "6" for r in rows)


def test_grader_error_message_names_the_root_cause():
    log = (
        "[INFO] Autograding x\n[ERROR] Kernel died while waiting for execute reply.\n"
        "[ERROR] There was an error processing assignment: /w/submitted/a/lab\n[ERROR] Traceback (most recent call last):\n"
        "nbclient.exceptions.DeadKernelError: Kernel died\n"
        "[ERROR] Please see the the above traceback for details on the specific errors on the above failures.\n"
    )
    assert nbgrader_app.RunLog(False, log).last_error() == "Kernel died while waiting for execute reply."
    tb = "Traceback (most recent call last):\n  File 'x'\nsqlalchemy.exc.OperationalError: database is locked\n"
    assert nbgrader_app.RunLog(False, "", tb).last_error() == "OperationalError: database is locked"


@pytest.mark.slow  # starts the alembic command (6 s): make test, not make check
def test_the_gradebook_schema_version_read_in_process_is_the_alembic_commands(tmp_path):
    from nbgrader.dbutil import _temp_alembic_ini

    nbgrader_app.prepare_nbgrader()
    with _temp_alembic_ini(f"sqlite:///{tmp_path / 'unused.db'}") as ini:
        heads = subprocess.run(["alembic", "-c", ini, "heads"], capture_output=True, text=True, check=True).stdout
    assert nbgrader_app.gradebook_schema_head() == heads.split()[0]
    with nbgrader_app.open_gradebook(CoursePaths.from_env(work=tmp_path / "work")) as gb:
        version = gb.db.execute(sqlalchemy.text("SELECT version_num FROM alembic_version")).scalar_one()
    assert version == heads.split()[0]


def test_write_csv_to_stream():
    buf = io.StringIO()
    write_csv([GradeResult("z", GRADED, 1.5, 2.0, "a, b", lab="l")], buf)
    assert buf.getvalue().splitlines() == ["student_id,lab,score,max_score,status,message", 'z,l,1.5,2,graded,"a, b"']


# --------------------------------------------------------------------------- preprocessors


def _graded_notebook_with_traceback() -> nbformat.NotebookNode:
    hidden = "assert abs(average_throughput(10, [1, 4]) - 4.0) < 1e-9  # a_hidden_check"
    test = new_code_cell(
        f"assert True\n### BEGIN HIDDEN TESTS\n{hidden}\n### END HIDDEN TESTS",
        metadata=grade_meta("test_average_throughput", grade=True, locked=True, points=3),
    )
    test.outputs = [
        new_output("stream", name="stderr", text=f"<cell>:3: RuntimeWarning: divide by zero\n  {hidden}\n"),
        new_output(
            "error",
            ename="AssertionError",
            evalue="unequal run times",
            traceback=[
                "\x1b[0;31m----------------------------------------------------------\x1b[0m",
                "\x1b[0;31mAssertionError\x1b[0m    Traceback (most recent call last)",
                f"Cell \x1b[0;32mIn[7], line 3\x1b[0m\n\x1b[0;32m----> 3\x1b[0m {hidden}",
                "\x1b[0;31mAssertionError\x1b[0m: unequal run times",
            ],
        ),
    ]
    answer = new_code_cell("def f():\n    return 1 / 0\nf()", metadata=grade_meta("answer_f", solution=True))
    answer_tb = [
        "ZeroDivisionError    Traceback (most recent call last)",
        "----> 3 f()",
        "ZeroDivisionError: division by zero",
    ]
    answer.outputs = [new_output("error", ename="ZeroDivisionError", evalue="division by zero", traceback=answer_tb)]
    return new_notebook(cells=[answer, test])


def test_feedback_preprocessors_strip_tracebacks_and_hidden_code():
    from nbgrader.preprocessors import ClearHiddenTests

    nb = _graded_notebook_with_traceback()
    nb, _ = RedactTracebacks().preprocess(nb, {})
    nb, _ = ClearHiddenTests().preprocess(nb, {})
    text = json.dumps(nb)
    assert "a_hidden_check" not in text
    assert "most recent call last" not in nb.cells[1].outputs[1].traceback[0]
    assert nb.cells[1].outputs[1].traceback == ["AssertionError: unequal run times"]
    assert "RuntimeWarning" in nb.cells[1].outputs[0].text  # the warning stays, its quote of hidden code does not
    # a student's own error keeps its traceback (it quotes only the student's code)
    assert len(nb.cells[0].outputs[0].traceback) == 3


def test_without_redaction_the_traceback_would_leak():
    """The default nbgrader feedback pipeline (ClearHiddenTests alone) leaves the quote: this is why we redact."""
    from nbgrader.preprocessors import ClearHiddenTests

    nb, _ = ClearHiddenTests().preprocess(_graded_notebook_with_traceback(), {})
    assert "a_hidden_check" in json.dumps(nb)


def test_release_metadata_cleaning():
    nb = new_notebook(
        cells=[
            new_code_cell(
                "x",
                metadata={
                    "ExecuteTime": {"start": "t"},
                    "collapsed": True,
                    "scrolled": True,
                    "tags": ["keep"],
                    "nbgrader": {"grade_id": "g"},
                    "editable": False,
                },
            )
        ],
        metadata={
            "kernelspec": {"name": "hpml", "display_name": "x"},
            "widgets": {"state": {}},
            "language_info": {"name": "python", "version": "3.11.9"},
        },
    )
    nb, _ = CleanReleaseMetadata().preprocess(nb, {})
    assert set(nb.cells[0].metadata) == {"tags", "nbgrader", "editable"}
    assert set(nb.metadata) == {"kernelspec", "language_info"}
    assert nb.metadata["language_info"] == {"name": "python"}


# --------------------------------------------------------------------------- sample class builder


@pytest.mark.slow
def test_sample_class_builder(toy_course, tmp_path):
    release = generate.generate_lab(TOY, toy_course)[0]
    source = toy_course.source / TOY / f"{TOY}.ipynb"
    files = sample_class.build_sample_class(tmp_path / "class", source, release)
    assert sorted(files) == sorted(sample_class.STUDENTS)
    perfect = nbformat.read(files["perfect"], as_version=4)
    text = "\n".join(c.source for c in perfect.cells)
    assert "toy_add_solution_line" in text and "toy_avg_solution_line" in text
    assert "BEGIN SOLUTION" not in text and "YOUR CODE HERE" not in text
    assert "BEGIN HIDDEN TESTS" not in text  # built from the release: no hidden tests
    # one_wrong: average_throughput is the arithmetic mean of the throughputs, everything else as perfect
    wrong = nbformat.read(files["one_wrong"], as_version=4)
    changed = [i for i, (a, b) in enumerate(zip(perfect.cells, wrong.cells)) if a.source != b.source]
    assert len(changed) == 1
    ns: dict = {}
    exec(wrong.cells[changed[0]].source, ns)
    assert ns["average_throughput"](10, [1, 4]) == pytest.approx((10 / 1 + 10 / 4) / 2)
    exec(perfect.cells[changed[0]].source, ns)
    assert ns["average_throughput"](10, [1, 4]) == pytest.approx(20 / 5)
    assert files["untouched"].read_bytes() == release.read_bytes()
    with pytest.raises(InvalidNotebook):
        read_notebook(files["not_json"])


# --------------------------------------------------------------------------- through nbgrader (toy lab)


@pytest.mark.slow
def test_toy_class_grades_idempotently_and_restores_deleted_tests(toy_course, tmp_path):
    release = generate.generate_lab(TOY, toy_course)[0]
    source = toy_course.source / TOY / f"{TOY}.ipynb"
    subs = tmp_path / "subs"
    files = sample_class.build_sample_class(subs, source, release)
    # a cheater: deletes the test cell of average_throughput from an otherwise perfect notebook
    nb = nbformat.read(files["perfect"], as_version=4)
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_average_throughput"]
    nb.cells = [
        c
        if "def average_throughput" not in c.source
        else new_code_cell("def average_throughput(work, times):\n    return 0.0", metadata=c.metadata)
        for c in nb.cells
    ]
    nbformat.write(nb, _write(subs / "deleter" / f"{TOY}.ipynb", ""))
    # a crasher: kills its kernel; nbgrader gives up on it, the batch goes on
    nb = nbformat.read(files["perfect"], as_version=4)
    for cell in nb.cells:
        if "def add" in cell.source:
            cell.source = "import os\nos._exit(1)\n" + cell.source
    nbformat.write(nb, _write(subs / "crasher" / f"{TOY}.ipynb", ""))

    first = {r.student_id: r for r in autograde.autograde_class(TOY, subs, toy_course, progress=None)}
    assert first["perfect"].status == GRADED and first["perfect"].score == 5
    assert first["one_wrong"].score == 2 and first["one_wrong"].failed_tests == ["test_average_throughput"]
    assert first["untouched"].score == 0
    assert first["not_json"].status == INVALID_NOTEBOOK
    # the deleted test cell is restored from the source and fails; deleting it is reported as tampering
    assert first["deleter"].status == TAMPERED and first["deleter"].failed_tests == ["test_average_throughput"]
    assert first["deleter"].score == 2
    assert "test_average_throughput" in first["deleter"].message and "deleted" in first["deleter"].message
    assert first["crasher"].status == KERNEL_DIED and first["crasher"].score == 0
    assert "answer_add" in first["crasher"].message
    # the grading kernel ran in fast mode
    executed = nbformat.read(toy_course.autograded / "perfect" / TOY / f"{TOY}.ipynb", as_version=4)
    assert "fast mode: 1" in json.dumps(executed.cells[1].outputs)

    second = {r.student_id: r for r in autograde.autograde_class(TOY, subs, toy_course, progress=None)}
    assert second == first
    assert {(r.student_id, r.score, r.status) for r in export.collect_results(toy_course)} == {
        (r.student_id, r.score, r.status) for r in first.values()
    }


@pytest.mark.slow
def test_toy_validate_passes_and_catches_a_leaky_release(toy_course, capsys):
    assert cli.main(["generate", TOY]) == 0
    assert cli.main(["validate", TOY]) == 0
    assert "OK" in capsys.readouterr().out
    # a "release" that still carries the solution passes its tests: validate must fail
    release = toy_course.release / TOY / f"{TOY}.ipynb"
    solved = sample_class.solved_notebook(toy_course.source / TOY / f"{TOY}.ipynb", release)
    nbformat.write(solved, release)
    assert cli.main(["validate", TOY]) == 1
    assert "must fail" in capsys.readouterr().out


# --------------------------------------------------------------------------- parallel grading


def test_parser_autograde_options():
    parse = cli.build_parser().parse_args
    a = parse(["autograde", "lab01_benchmarking", "subs", "--jobs", "3", "--student", "a", "--student", "b", "--force"])
    assert (a.jobs, a.student, a.force) == (3, ["a", "b"], True)
    a = parse(["autograde", "lab01_benchmarking", "subs"])
    assert a.jobs is None and a.student is None and not a.force
    assert scheduler.default_jobs() >= 1


def test_grading_limits_follow_the_lab_and_the_environment(monkeypatch):
    monkeypatch.delenv("HPML_SANDBOX_LIMITS", raising=False)
    for var in ("HPML_CELL_TIMEOUT", "HPML_NOTEBOOK_TIMEOUT", "HPML_MAX_OUTPUT_BYTES"):
        monkeypatch.delenv(var, raising=False)
    lab = limits_for("lab01_benchmarking")
    assert lab.notebook_timeout_s == Lab.load("lab01_benchmarking").limit_overrides["notebook_timeout_s"] != 900
    with pytest.raises(labs.CourseError, match="no lab 'no_such_lab'"):
        limits_for("no_such_lab")
    monkeypatch.setenv("HPML_CELL_TIMEOUT", "7")
    monkeypatch.setenv("HPML_NOTEBOOK_TIMEOUT", "33")
    short = limits_for("lab01_benchmarking")
    assert (short.cell_timeout_s, short.notebook_timeout_s, short.memory_mb) == (7, 33, lab.memory_mb)
    monkeypatch.setenv("HPML_CELL_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="HPML_CELL_TIMEOUT"):
        limits_for("lab01_benchmarking")


def test_docs_limits_table_is_the_one_the_code_uses():
    doc = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    start = doc.index("<!-- limits table:")
    table = doc[doc.index("\n", start) + 1 : doc.index("<!-- end of limits table -->")].strip()
    assert table == limits_table(all_labs()), (
        "write autograder.lab_settings.limits_table(all_labs()) into docs/grading.md"
    )


def test_cap_outputs_cuts_text_and_notes_it():
    from autograder.grading.execute import cap_outputs

    cell = new_code_cell("print(...)")
    cell.outputs = [new_output("stream", name="stdout", text="x" * 5000), new_output("stream", name="stdout", text="y")]
    assert cap_outputs(cell, 1000) == (True, 1000)
    assert len(cell.outputs) == 1 and cell.outputs[0].text.startswith("x" * 1000)
    assert "output cut" in cell.outputs[0].text
    small = new_code_cell("1")
    small.outputs = [new_output("stream", name="stdout", text="ok\n")]
    assert cap_outputs(small, 1000, used=10) == (False, 13) and small.outputs[0].text == "ok\n"
    # the limit is per notebook: a later cell gets what earlier cells left, errors always stay
    late = new_code_cell("2")
    late.outputs = [
        new_output("stream", name="stdout", text="z" * 50),
        new_output("error", ename="AssertionError", evalue="x", traceback=[]),
    ]
    assert cap_outputs(late, 1000, used=990)[0]
    assert late.outputs[0].text.startswith("z" * 10) and late.outputs[1].output_type == "error"
    # the tamper guard's marker survives a spent budget (the audit needs it)
    marked = new_code_cell("3")
    marked.outputs = [
        new_output("display_data", data={"application/vnd.hpml.guard+json": {"ok": 1}}),
        new_output("display_data", data={"text/plain": "w" * 100}),
    ]
    assert cap_outputs(marked, 1000, used=1000)[0]
    assert [list(o.data) for o in marked.outputs] == [["application/vnd.hpml.guard+json"]]


def test_kill_job_kills_the_whole_tree_and_new_sessions(tmp_path):
    """A worker with a grandchild in a session of its own (as jupyter_client starts kernels): all of it dies."""
    import time as _time

    script = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    deadline = _time.time() + 10
    while not processes.descendants(proc.pid) and _time.time() < deadline:
        _time.sleep(0.05)
    tree = processes.descendants(proc.pid) | {proc.pid}
    assert len(tree) == 2
    processes.kill_job(proc)
    _time.sleep(0.2)
    alive = []
    for pid in tree:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    assert not alive


def _toy_class(toy_course, tmp_path) -> Path:
    release = generate.generate_lab(TOY, toy_course)[0]
    subs = tmp_path / "subs"
    sample_class.build_sample_class(subs, toy_course.source / TOY / f"{TOY}.ipynb", release)
    return subs


def _summary(results):
    return sorted((r.student_id, r.status, r.score, r.max_score, tuple(r.failed_tests)) for r in results)


@pytest.mark.slow
def test_parallel_grading_gives_the_serial_grades(toy_course, tmp_path):
    subs = _toy_class(toy_course, tmp_path)
    serial = autograde.autograde_class(TOY, subs, toy_course, progress=None, jobs=1)
    other = CoursePaths(root=toy_course.root, work=tmp_path / "work2", release=toy_course.release)
    parallel = autograde.autograde_class(TOY, subs, other, progress=None, jobs=3)
    assert _summary(serial) == _summary(parallel)
    assert {(r.student_id, r.score, r.status) for r in export.collect_results(toy_course)} == {
        (r.student_id, r.score, r.status) for r in export.collect_results(other)
    }


@pytest.mark.slow
def test_rerun_skips_unchanged_and_one_student_regrade_touches_only_them(toy_course, tmp_path, monkeypatch):
    subs = _toy_class(toy_course, tmp_path)
    first = {r.student_id: r for r in autograde.autograde_class(TOY, subs, toy_course, progress=None, jobs=2)}

    def no_worker(*a, **k):
        raise AssertionError("an unchanged submission was graded again")

    with monkeypatch.context() as mp:
        mp.setattr(scheduler, "start_worker", no_worker)
        again = {r.student_id: r for r in autograde.autograde_class(TOY, subs, toy_course, progress=None)}
    assert again == first

    def gradebook_rows(student):
        with nbgrader_app.open_gradebook(toy_course) as gb:
            sub = gb.find_submission(TOY, student)
            return sorted((g.name, g.auto_score, g.needs_manual_grade) for nb in sub.notebooks for g in nb.grades)

    before = {s: gradebook_rows(s) for s in ("perfect", "untouched")}
    # one_wrong hands in a corrected notebook: only they are graded again
    nbformat.write(nbformat.read(subs / "perfect" / f"{TOY}.ipynb", as_version=4), subs / "one_wrong" / f"{TOY}.ipynb")
    out = autograde.autograde_class(TOY, subs, toy_course, progress=None, students=["one_wrong"])
    assert [(r.student_id, r.score) for r in out] == [("one_wrong", 5)]
    store = StatusStore(toy_course.statuses)
    for sid in ("perfect", "untouched", "not_json"):
        assert store.get(TOY, sid) == first[sid], sid
    assert {s: gradebook_rows(s) for s in before} == before
    assert store.get(TOY, "one_wrong").score == 5
    with nbgrader_app.open_gradebook(toy_course) as gb:
        assert len(gb.find_assignment(TOY).submissions) == 3  # replaced, not added


@pytest.mark.slow
def test_interrupted_batch_is_completed_by_the_next_run(toy_course, tmp_path, monkeypatch):
    subs = _toy_class(toy_course, tmp_path)
    real_merge = gradebook.merge_submission
    calls = []

    def merge_then_interrupt(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the second student is being recorded
        return real_merge(*args, **kwargs)

    with monkeypatch.context() as mp:
        mp.setattr(gradebook, "merge_submission", merge_then_interrupt)
        with pytest.raises(KeyboardInterrupt):
            autograde.autograde_class(TOY, subs, toy_course, progress=None, jobs=2)
    recorded = {r.student_id for r in StatusStore(toy_course.statuses).results(TOY)}
    assert calls[1] not in recorded  # nothing is recorded before its merge
    assert not list((toy_course.work / "jobs" / TOY).glob("*/result.json")), "a worker outlived the interrupt"
    done = autograde.autograde_class(TOY, subs, toy_course, progress=None, jobs=2)
    clean = CoursePaths(root=toy_course.root, work=tmp_path / "clean", release=toy_course.release)
    assert _summary(done) == _summary(autograde.autograde_class(TOY, subs, clean, progress=None, jobs=2))


@pytest.mark.slow
def test_late_submission_by_timestamp(toy_course, tmp_path):
    """nbgrader's timestamp.txt after the lab's due date: status late, points as nbgrader gives them."""
    release = generate.generate_lab(TOY, toy_course)[0]
    subs = tmp_path / "subs"
    files = sample_class.build_sample_class(subs, toy_course.source / TOY / f"{TOY}.ipynb", release)
    for student in ("one_wrong", "untouched", "not_json"):
        import shutil as _shutil

        _shutil.rmtree(files[student].parent)
    late = subs / "late_perfect"
    late.mkdir()
    nbformat.write(nbformat.read(files["perfect"], as_version=4), late / f"{TOY}.ipynb")
    (late / "timestamp.txt").write_text("2026-11-21 10:00:00.000000 UTC")
    (subs / "perfect" / "timestamp.txt").write_text("2026-11-19 10:00:00.000000 UTC")
    # one day more for two students (the policy's [[extensions]]): on time within it, late after it
    for student, handed_in in (("extended", "2026-11-21 10:00"), ("extended_late", "2026-11-22 10:00")):
        (subs / student).mkdir()
        nbformat.write(nbformat.read(files["perfect"], as_version=4), subs / student / f"{TOY}.ipynb")
        (subs / student / "timestamp.txt").write_text(f"{handed_in}:00.000000 UTC")
    own_due = datetime(2026, 11, 21, 23, 59, tzinfo=timezone.utc)
    extensions = {"extended": own_due, "extended_late": own_due}
    due = "2026-11-20 23:59:00 UTC"
    out = {
        r.student_id: r
        for r in autograde.autograde_class(TOY, subs, toy_course, progress=None, due=due, extensions=extensions)
    }
    assert out["perfect"].status == GRADED and out["perfect"].score == 5
    assert out["late_perfect"].status == "late" and out["late_perfect"].score == 5
    assert "after the due date" in out["late_perfect"].message
    assert out["extended"].status == GRADED and "extension: due 2026-11-21 23:59 UTC" in out["extended"].message
    assert out["extended_late"].status == "late"
    assert "10.0 h after their extended due date (2026-11-21 23:59 UTC)" in out["extended_late"].message
    rows = {r.student_id: r for r in export.collect_results(toy_course)}
    assert rows["late_perfect"].status == "late" and "after the due date" in rows["late_perfect"].message
    with open_gradebook(toy_course) as gb:  # nbgrader's own late logic agrees (its penalty, its Formgrader)
        assert gb.find_submission(TOY, "extended").total_seconds_late == 0
        assert gb.find_submission(TOY, "late_perfect").total_seconds_late > 0


def test_due_times_of_a_lab_from_the_policy(tmp_path):
    """days count calendar days in the course's zone from the lab's due date; due_at replaces it; other labs'
    extensions do not apply."""
    policy_file = tmp_path / "policy.toml"
    policy_file.write_text(
        DEFAULT_POLICY.read_text()
        + '[[extensions]]\nstudent_id = "a"\nitem = "lab01"\ndays = 2\n'
        + '[[extensions]]\nstudent_id = "b"\nitem = "lab01"\ndue_at = 2026-11-30T12:00:00-05:00\n'
        + '[[extensions]]\nstudent_id = "c"\nitem = "lab02"\ndays = 1\n'
    )
    got = load_policy(policy_file).due_times("lab01", datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc))
    assert got == {
        "a": datetime(2026, 11, 22, 23, 59, tzinfo=timezone.utc),
        "b": datetime(2026, 11, 30, 17, 0, tzinfo=timezone.utc),
    }


@pytest.mark.slow
def test_nbgrader_submit_files_reach_the_feedback_and_never_outlive_their_hand_in(toy_course, tmp_path):
    """``nbgrader release_feedback`` needs the hand-in's timestamp.txt and submission_secret.txt beside the HTML."""
    release = generate.generate_lab(TOY, toy_course)[0]
    files = sample_class.build_sample_class(tmp_path / "subs", toy_course.source / TOY / f"{TOY}.ipynb", release)
    hand_in = files["perfect"].parent
    (hand_in / "timestamp.txt").write_text("2026-11-21 10:00:00.000000 UTC")
    (hand_in / "submission_secret.txt").write_text("f00d" * 32)
    due = "2026-11-20 23:59:00 UTC"
    first = autograde.autograde_class(TOY, tmp_path / "subs", toy_course, None, due=due, students=["perfect"])
    assert first[0].status == "late"
    made = feedback.feedback_lab(TOY, toy_course, students=["perfect"], progress=None)
    assert isinstance(made["perfect"], Path), made
    folder = toy_course.feedback / "perfect" / TOY
    assert (folder / "submission_secret.txt").read_text() == "f00d" * 32
    assert (folder / "timestamp.txt").read_text().startswith("2026-11-21")
    # the same student hands in again through an LMS, with no nbgrader files: the old timestamp is gone
    (hand_in / "timestamp.txt").unlink()
    (hand_in / "submission_secret.txt").unlink()
    again = autograde.autograde_class(
        TOY, tmp_path / "subs", toy_course, None, due=due, students=["perfect"], force=True
    )
    assert again[0].status == GRADED
    assert sorted(p.name for p in (toy_course.submitted / "perfect" / TOY).iterdir()) == [f"{TOY}.ipynb"]


@pytest.mark.slow
def test_grading_kernels_share_the_cores_among_jobs():
    cores = scheduler.default_jobs()
    one_job = scheduler.kernel_threads(1)
    assert set(one_job) == {*scheduler.THREAD_VARIABLES, "OMP_WAIT_POLICY"}
    assert one_job["OMP_WAIT_POLICY"] == "PASSIVE"
    assert one_job["OMP_NUM_THREADS"] == str(cores)
    assert scheduler.kernel_threads(cores)["NUMBA_NUM_THREADS"] == "1"
    assert scheduler.kernel_threads(4 * cores)["OMP_NUM_THREADS"] == "1"  # never 0
