"""A lab is one folder: ``lab.toml`` and ``mutants.toml`` read into one ``Lab``, and a bad file named with its key."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from autograder import domains
from autograder.lab_settings import Lab, LabSettingsError, Needs, all_labs, limits_for, limits_table
from autograder.limits import Limits
from tests.autograder.toy_course import TOY

ROOT = Path(__file__).resolve().parents[2]


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def toy_lab(toy_course) -> Path:
    return toy_course.source / TOY


def test_a_lab_without_settings_gets_the_defaults(toy_course):
    lab = Lab.load(TOY, toy_course)
    assert lab.limits == Limits() and lab.needs == Needs() and lab.mutants == () and lab.ci_mutants == ()
    assert lab.speed_tests == () and lab.problems() == []


def test_settings_are_read(toy_lab, toy_course):
    write(
        toy_lab,
        "lab.toml",
        """
        [limits]
        cell_timeout_s = 33
        [needs]
        gpu = "optional"
        cpp = true
        [tests]
        ci_mutants = ["always_one"]
        speed = ["test_add"]
        [graded_functions.add]
        args = [{integer = [0, 10]}, {uniform = [0, 1]}]
        """,
    )
    write(
        toy_lab,
        "mutants.toml",
        """
        [[mutant]]
        name = "always_one"
        why = "returns 1"
        fails = ["test_add"]
        [[mutant.edit]]
        cell = "answer_add"
        right = 'return a + b'
        wrong = 'return 1'
        """,
    )
    lab = Lab.load(TOY, toy_course)
    assert lab.limits.cell_timeout_s == 33 and lab.limit_overrides == {"cell_timeout_s": 33}
    assert lab.needs == Needs(gpu="optional", cpp=True)
    assert [m.name for m in lab.ci_mutants] == ["always_one"]
    assert lab.ci_mutants[0].edits == (("answer_add", "return a + b", "return 1"),)
    assert lab.problems() == [], "the toy lab's cells are answer_add and test_add"
    assert limits_for(TOY, env={}).cell_timeout_s == 33
    assert limits_for(TOY, env={"HPML_CELL_TIMEOUT": "5"}).cell_timeout_s == 5
    assert limits_for("", env={}) == Limits()  # nbgrader's configuration, before a lab is known
    assert "| toylab |" in limits_table([lab]) and "**33**" in limits_table([lab])


@pytest.mark.parametrize(
    "text, words",
    [
        ("[limits]\ncell_timout_s = 5\n", ["lab.toml", "[limits] cell_timout_s", "unknown key"]),
        ("[limits]\ncell_timeout_s = '5'\n", ["lab.toml", "[limits] cell_timeout_s", "positive whole number"]),
        ("[limits]\nmemory_mb = 0\n", ["[limits] memory_mb"]),
        ("[needs]\ngpu = 'yes'\n", ["[needs] gpu", "'optional'"]),
        ("[needs]\nmpi = 1\n", ["[needs] mpi", "true or false"]),
        ("[tests]\nspeed = 'test_add'\n", ["[tests] speed", "list of names"]),
        ("[test]\nspeed = []\n", ["lab.toml", "test: unknown key"]),
        ("[graded_functions.add]\nargs = [{uniform = [1, 0]}]\n", ["[graded_functions.add] args[0].uniform"]),
        ("[graded_functions.add]\nargs = [{gauss = [0, 1]}]\n", ["args[0]", "unknown key"]),
        ("[limits\n", ["lab.toml", "not valid TOML"]),
    ],
)
def test_a_malformed_lab_toml_names_the_file_and_the_key(toy_lab, toy_course, text, words):
    write(toy_lab, "lab.toml", text)
    with pytest.raises(LabSettingsError) as info:
        Lab.load(TOY, toy_course)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert f"solutions/{TOY}/lab.toml" in str(info.value)


MUTANT = """
[[mutant]]
name = "m"
why = "a mistake"
fails = {fails}
[[mutant.edit]]
cell = "{cell}"
right = 'return a + b'
wrong = 'return a'
"""


@pytest.mark.parametrize(
    "fails, cell, words",
    [
        ('"test_add"', "answer_add", ["mutant[0] (m): fails", "expected the list of test cells"]),
        ('["test_nothing"]', "answer_add", ["mutant m: fails", "'test_nothing' is not a test cell"]),
        ('["test_add"]', "test_add", ["mutant m: edit of 'test_add'", "not an answer cell"]),
    ],
)
def test_a_mutant_that_names_no_test_or_no_answer_is_refused(toy_lab, toy_course, fails, cell, words):
    write(toy_lab, "mutants.toml", MUTANT.format(fails=fails, cell=cell))
    with pytest.raises(LabSettingsError) as info:
        Lab.load(TOY, toy_course).mutants  # noqa: B018
    assert all(w in str(info.value) for w in words) and "mutants.toml" in str(info.value), str(info.value)


def test_a_mutant_that_fails_nothing_is_a_must_pass_variant(toy_lab, toy_course):
    write(toy_lab, "mutants.toml", MUTANT.format(fails="[]", cell="answer_add").replace("return a'", "return b + a'"))
    [m] = Lab.load(TOY, toy_course).mutants
    assert m.fails == frozenset() and m.edits == (("answer_add", "return a + b", "return b + a"),)


def test_a_mutant_without_fails_is_refused(toy_lab, toy_course):
    write(toy_lab, "mutants.toml", MUTANT.format(fails="[]", cell="answer_add").replace("fails = []\n", ""))
    with pytest.raises(LabSettingsError, match=r"mutant\[0\] \(m\): fails: expected the list of test cells"):
        Lab.load(TOY, toy_course).mutants  # noqa: B018


def test_a_ci_mutant_that_does_not_exist_is_refused(toy_lab, toy_course):
    write(toy_lab, "lab.toml", "[tests]\nci_mutants = ['nope']\n")
    with pytest.raises(LabSettingsError, match=r"lab.toml: \[tests\] ci_mutants: no mutant 'nope'"):
        Lab.load(TOY, toy_course).ci_mutants  # noqa: B018
    assert "no mutant 'nope'" in Lab.load(TOY, toy_course).problems()[0]


def test_settings_that_name_missing_cells_are_problems(toy_lab, toy_course):
    write(toy_lab, "lab.toml", "[tests]\nspeed = ['test_gone']\n[graded_functions.mul]\nargs = []\n")
    problems = Lab.load(TOY, toy_course).problems()
    assert any("'test_gone' is not a test cell" in p for p in problems), problems
    assert any("no answer cell defines mul()" in p for p in problems), problems


def test_needs_say_what_is_missing(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    missing = Needs(gpu="required", mpi=True, cpp=True).missing()
    assert [m.split(" ")[0] for m in missing] == ["a", "mpiexec:", "a"]
    assert "GPU" in missing[0] and "make cpp-tools" in missing[2]
    assert Needs(gpu="optional").missing() == []


@pytest.mark.parametrize(
    "spec",
    [
        {"uniform": [1, 2]},
        {"log_uniform": [1e-3, 1e3]},
        {"integer": [3, 7]},
        {"choice": ["a", "b"]},
        {"value": [1, 2]},
        {"list": {"integer": [0, 5]}, "length": [2, 6]},
        {"list": {"tuple": [{"uniform": [0, 1]}, {"value": 1}]}, "length": 3},
    ],
)
def test_domains_are_checked_and_sampled_inside_their_bounds(spec):
    assert domains.problems(spec, "x") == []
    rng = random.Random(0)
    for _ in range(50):
        value = domains.sample(spec, rng)
        if "uniform" in spec:
            assert 1 <= value <= 2
        elif "log_uniform" in spec:
            assert 1e-3 <= value <= 1e3
        elif "integer" in spec:
            assert isinstance(value, int) and 3 <= value < 7
        elif "choice" in spec:
            assert value in ("a", "b")
        elif "value" in spec:
            assert value == [1, 2]
        elif spec["length"] == 3:
            assert len(value) == 3 and all(0 <= a <= 1 and b == 1 for a, b in value)
        else:
            assert 2 <= len(value) < 6 and all(0 <= v < 5 for v in value)


def test_every_lab_of_the_course_reads():
    labs = all_labs()
    assert [lab.name for lab in labs] == sorted(p.parent.name for p in (ROOT / "solutions").glob("*/*.ipynb"))
    assert all(lab.folder.parent == ROOT / "solutions" for lab in labs)


def test_autograde_stops_before_anyone_when_a_need_is_missing(toy_lab, toy_course, tmp_path, monkeypatch):
    from autograder.grading.autograde import autograde_class
    from autograder.labs import CourseError

    write(toy_lab, "lab.toml", "[needs]\ngpu = 'required'\n")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(CourseError, match="toylab cannot be graded on this machine; it needs a GPU"):
        autograde_class(TOY, tmp_path / "no-submissions-needed", toy_course, progress=None)
    assert not toy_course.statuses.exists(), "nothing was graded"


@pytest.mark.parametrize("lab", all_labs(), ids=lambda lab: lab.name)
def test_every_test_cell_that_times_something_is_a_declared_speed_test(lab, tmp_path):
    from tests.speed_cells import speed_notebook, undeclared_speed_tests

    assert undeclared_speed_tests(lab) == [], f"add them to [tests] speed in {lab.name}/lab.toml"
    for source in lab.notebooks:
        cut = speed_notebook(source, lab.speed_tests)
        assert (cut is None) == (not lab.speed_tests)
        if cut is not None:
            assert sorted(cut[1]) == sorted(lab.speed_tests)
