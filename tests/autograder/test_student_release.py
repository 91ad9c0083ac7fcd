"""The student distribution (``make student-release``) holds no answer, no hidden test and no instructor tool.

It is built once for the module into a temporary folder, then searched: for
nbgrader's solution and hidden-test markers, for every non-trivial line of
every reference solution and hidden test of ``solutions/``, for instructor
folders; its Jupyter settings are applied over a fresh nbgrader install and the
server's own extension lookup must find Formgrader and the exchange tools off
and Validate on. The search itself is tested on a planted leak.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.classroom import student_release
from autograder.labs import list_labs, source_notebooks
from autograder.paths import CoursePaths
from autograder.pipeline.preprocessors import hidden_test_lines

pytestmark = pytest.mark.slow  # builds the student release and starts its Jupyter server: left out of make check
ROOT = Path(__file__).resolve().parents[2]
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "BEGIN MARK SCHEME")
TEXT_SUFFIXES = {".ipynb", ".py", ".md", ".txt", ".toml", ".json", ".cfg", ""}
INSTRUCTOR_SERVER_EXTENSIONS = ("formgrader", "course_list", "assignment_list")
INSTRUCTOR_LAB_PLUGINS = ("formgrader", "create-assignment", "course-list", "assignment-list")
# lines of a reference answer that the package or the course also need, and that compute nothing graded
# (lab09's spec tells students to call PyTorch's causal attention in prefill)
SHARED_IDIOMS = {
    "device = next(model.parameters()).device",
    "return F.scaled_dot_product_attention(q, k, v, is_causal=True)",
}
# build with this environment's setuptools when it has one (no download); pip fetches it otherwise
OFFLINE_BUILD = ["--no-build-isolation"] if importlib.util.find_spec("setuptools") else []


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist") / "hpml-student"
    student_release.build(out, CoursePaths.from_env(work=tmp_path_factory.mktemp("work")))
    return out


def _without_answers(source: str) -> str:
    """A cell's source with its solution and hidden-test regions cut out (what the release keeps of it)."""
    kept, inside = [], False
    for line in source.splitlines():
        if "BEGIN SOLUTION" in line or "BEGIN HIDDEN TESTS" in line:
            inside = True
        elif "END SOLUTION" in line or "END HIDDEN TESTS" in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def _reference_lines() -> dict[str, str]:
    """Every non-trivial line of a reference solution, written answer or hidden test: {line: the notebook}.

    A line that some lab also shows outside its answers (an import, a timing
    idiom, a helper a visible test defines) gives nothing away and is left out.
    """
    paths = CoursePaths.from_env()
    answers, given = {}, []
    for lab in list_labs(paths):
        for nb_path in source_notebooks(lab, paths):
            for cell in json.loads(nb_path.read_text())["cells"]:
                source = "".join(cell["source"])
                lines = hidden_test_lines(source) + hidden_test_lines(source, "BEGIN SOLUTION", "END SOLUTION")
                if cell["cell_type"] == "markdown" and cell["metadata"].get("nbgrader", {}).get("solution"):
                    lines += [l.strip() for l in source.splitlines() if len(l.strip()) >= 40]  # a written answer
                else:
                    given.append(_without_answers(source))
                answers.update(dict.fromkeys(lines, str(nb_path.relative_to(ROOT))))
    shown = "\n".join(given)
    return {line: where for line, where in answers.items() if line not in shown}


def leaks(folder: Path) -> list[str]:
    """What in ``folder`` gives an answer away: markers, reference lines, instructor folders.

    The lectures and the package may share an idiom with a reference answer (a
    profiler span, a timing loop): there only long, non-import lines count, and
    ``tests/autograder/test_no_answers_handed_out.py`` compares whole functions.
    """
    problems = [
        f"{name}/ is in the student release"
        for name in ("solutions", "tests", "autograder", ".git")
        if (folder / name).exists()
    ]
    reference = _reference_lines()
    distinctive = {
        line: src
        for line, src in reference.items()
        if len(line) >= 40 and not line.startswith(("import ", "from ")) and line not in SHARED_IDIOMS
    }
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES):
        text = path.read_text(errors="replace")
        if path.suffix == ".ipynb":  # the cells as a student sees them, not JSON-escaped
            text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
        rel = path.relative_to(folder)
        search = distinctive if rel.parts[0] in ("course", "hpml_lab_utils") else reference
        problems += [f"{rel}: nbgrader marker {m!r}" for m in MARKERS if m in text]
        problems += [f"{rel}: line of {src}: {line!r}" for line, src in search.items() if line in text]
    return problems


def test_the_release_has_what_students_need_and_nothing_else(dist):
    assert sorted(p.name for p in dist.iterdir()) == sorted(
        [
            ".gitignore",
            student_release.MARKER,
            "Makefile",
            "README.md",
            "constraints.txt",
            "course",
            "hpml_lab_utils",
            "jupyter",
            "labs",
            "pyproject.toml",
        ]
    )
    labs = sorted(p.relative_to(dist / "labs").as_posix() for p in (dist / "labs").rglob("*.ipynb"))
    assert labs == sorted(f"{lab}/{lab}.ipynb" for lab in list_labs(CoursePaths.from_env()))
    course = sorted(p.name for p in (dist / "course").iterdir())
    assert course == sorted(p.name for p in (ROOT / "course").iterdir() if p.name != ".ipynb_checkpoints")
    # the package as the instructor repository has it: tests/autograder/test_no_answers_handed_out.py covers it
    package = sorted(p.relative_to(dist).as_posix() for p in (dist / "hpml_lab_utils").rglob("*") if p.is_file())
    assert package == sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "hpml_lab_utils").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".nbi", ".nbc"}
    )


def test_no_answer_hidden_test_or_instructor_folder_is_in_it(dist):
    assert leaks(dist) == []


def test_the_search_finds_a_planted_answer(dist, tmp_path):
    planted = tmp_path / "planted"
    shutil.copytree(dist, planted)
    lab = "lab01_benchmarking"
    shutil.copy(ROOT / "solutions" / lab / f"{lab}.ipynb", planted / "labs" / lab / "copy.ipynb")
    helper = planted / "hpml_lab_utils" / "answers.py"
    reference = [
        l for l, src in _reference_lines().items() if "lab05" in src and l.startswith("return ") and len(l) >= 40
    ]
    helper.write_text(f"def f():\n    {reference[0]}\n")
    found = leaks(planted)
    assert any("copy.ipynb: nbgrader marker 'BEGIN SOLUTION'" in f for f in found), found[:5]
    assert any("copy.ipynb: line of" in f and "HIDDEN" not in f for f in found)
    assert any(f.startswith("hpml_lab_utils/answers.py: line of solutions/lab05") for f in found), found[-5:]
    (planted / "solutions").mkdir()
    assert "solutions/ is in the student release" in leaks(planted)


PROBE = """
from jupyter_server.serverapp import ServerApp
app = ServerApp()
app.find_server_extensions()
print(__import__("json").dumps({k: v for k, v in app.jpserver_extensions.items() if k.startswith("nbgrader")}))
"""


def _server_extensions(config_dir: Path) -> dict[str, bool]:
    """nbgrader's server extensions as a Jupyter server started with ``config_dir`` first would load them."""
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(config_dir))
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout
    return {k.rsplit(".", 1)[-1]: v for k, v in json.loads(out).items()}


def test_instructor_tools_are_off_and_validate_is_on(dist, tmp_path):
    # a fresh student install: nbgrader's own settings (every extension on), then the release's, as `make setup` copies
    etc = tmp_path / "etc" / "jupyter"
    shipped = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / "nbgrader.json"
    (etc / "jupyter_server_config.d").mkdir(parents=True)
    shutil.copy(shipped, etc / "jupyter_server_config.d")
    before = _server_extensions(etc)
    assert all(before[name] for name in INSTRUCTOR_SERVER_EXTENSIONS), before  # the probe sees nbgrader's defaults
    shutil.copytree(dist / "jupyter", etc, dirs_exist_ok=True)
    after = _server_extensions(etc)
    assert {name: after[name] for name in INSTRUCTOR_SERVER_EXTENSIONS} == dict.fromkeys(
        INSTRUCTOR_SERVER_EXTENSIONS, False
    )
    assert after["validate_assignment"] is True
    disabled = json.loads((etc / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert {p: disabled.get(f"@jupyter/nbgrader:{p}") for p in INSTRUCTOR_LAB_PLUGINS} == dict.fromkeys(
        INSTRUCTOR_LAB_PLUGINS, True
    )
    assert not disabled.get("@jupyter/nbgrader:validate-assignment")
    assert "cp -R jupyter/. $(VENV)/etc/jupyter/" in (dist / "Makefile").read_text()


def test_the_package_builds_with_only_the_course_utilities(dist, tmp_path):
    copy = tmp_path / "copy"  # setuptools writes build/ and *.egg-info beside the sources
    shutil.copytree(dist, copy)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *OFFLINE_BUILD, "-q", "-w", str(tmp_path), "."],
        cwd=copy,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("hpml_student-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"hpml_lab_utils"}
    assert any(n.startswith("hpml_lab_utils/texts/") and n.endswith(".txt") for n in names)
    requires = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Requires-Dist: torch" in requires and "Requires-Dist: nbgrader" in requires


def test_the_student_readme_gives_two_commands_that_the_makefile_has(dist):
    readme = (dist / "README.md").read_text()
    assert "make setup" in readme and "make lab" in readme
    for target in ("setup", "lab"):
        dry = subprocess.run(["make", "-n", target], cwd=dist, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stderr
    assert "jupyter lab" in subprocess.run(["make", "-n", "lab"], cwd=dist, capture_output=True, text=True).stdout


def test_a_rebuild_keeps_the_student_repository_history_and_refuses_other_folders(dist, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(dist, out)
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / "stale.txt").write_text("left over")
    student_release.build(out)
    assert (out / ".git" / "HEAD").exists() and not (out / "stale.txt").exists()
    other = tmp_path / "somebody_elses"
    other.mkdir()
    (other / "thesis.tex").write_text("precious")
    with pytest.raises(SystemExit, match="not a student release"):
        student_release.build(other)
    assert (other / "thesis.tex").read_text() == "precious"
