"""The student distribution: ``python -m autograder.classroom.student_release [--out dist/hpml-student]`` (``make student-release``).

A self-contained folder students clone or download, publishable as a git
repository of its own. It holds what students work with and nothing an
instructor keeps:

- ``labs/``: a fresh release of every lab, generated from ``solutions/`` by
  nbgrader (solutions and hidden tests removed);
- ``course/``: the teaching notebooks;
- ``hpml_lab_utils/``: the package every notebook imports;
- ``pyproject.toml`` (that package and this project's dependencies),
  ``constraints.txt`` (the CPU torch pin), a ``Makefile`` (``make setup``,
  ``make lab``), a student ``README.md`` and the Jupyter settings that switch
  nbgrader's instructor tools off (``autograder/classroom/student_template/``).

No ``solutions/``, ``tests/``, ``autograder/`` or git history.
``tests/autograder/test_student_release.py`` builds it and hunts for answers.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from ..labs import list_labs
from ..paths import CoursePaths
from ..pipeline.generate import generate_lab

TEMPLATE = Path(__file__).resolve().parent / "student_template"
MARKER = ".hpml-student-release"  # marks a folder this tool may delete and rebuild
DEFAULT_OUT = "dist/hpml-student"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.nbi", "*.nbc")


def _toml_string_list(items: list[str]) -> str:
    return "[\n" + "".join(f'    "{item}",\n' for item in items) + "]"


def student_pyproject(root: Path) -> str:
    """``pyproject.toml`` of the student copy: the ``hpml_lab_utils`` package with this project's dependencies.

    The ``kernels`` extra (Triton, ninja) is a plain dependency there: students need it for lab11. The ``ptx`` extra
    (NVIDIA's compiler wheels, about 180 MB) stays optional: without it weeks 5 and 6 say what to install. So does
    ``finetune-compare`` (bitsandbytes, lab14's comparison).
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, as pip vendors it
        from pip._vendor import tomli as tomllib

    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return f"""\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "hpml-student"
version = "{project["version"]}"
description = "High-Performance Machine Learning course: notebooks, labs and their utilities (student copy)"
requires-python = "{project["requires-python"]}"
dependencies = {_toml_string_list(project["dependencies"] + project["optional-dependencies"]["kernels"])}

[project.optional-dependencies]
# real PTX without a GPU (weeks 5 and 6): pip install -e ".[ptx]"
ptx = {_toml_string_list(project["optional-dependencies"]["ptx"])}
# lab14's comparison with bitsandbytes' NF4: pip install -e ".[finetune-compare]"
finetune-compare = {_toml_string_list(project["optional-dependencies"]["finetune-compare"])}

[tool.setuptools.packages.find]
include = ["hpml_lab_utils*"]

[tool.setuptools.package-data]
hpml_lab_utils = ["texts/*.txt"]
"""


def _clear(out: Path) -> None:
    if not out.exists():
        return
    if not (out / MARKER).exists() and any(out.iterdir()):
        raise SystemExit(f"{out} exists and is not a student release (no {MARKER}): choose an empty or new folder")
    for child in out.iterdir():
        if child.name == ".git":  # the student repository's own history survives a rebuild
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def build(out: Path, paths: CoursePaths | None = None) -> list[Path]:
    """Write the student distribution into ``out`` (emptied first, except a ``.git``); return the lab notebooks."""
    paths = paths or CoursePaths.from_env()
    out = out.resolve()
    _clear(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("built by `make student-release`; rebuilding deletes everything here except .git\n")
    notebooks = []
    with tempfile.TemporaryDirectory(prefix="hpml-student-gradebook-") as work:
        release_paths = CoursePaths(root=paths.root, work=Path(work), release=out / "labs")
        for lab in list_labs(paths):
            notebooks += generate_lab(lab, release_paths)
    for folder in ("course", "hpml_lab_utils"):
        shutil.copytree(paths.root / folder, out / folder, ignore=SKIP)
    shutil.copy(paths.root / "requirements" / "constraints-cpu.txt", out / "constraints.txt")
    (out / "pyproject.toml").write_text(student_pyproject(paths.root))
    shutil.copy(TEMPLATE / "Makefile", out / "Makefile")
    shutil.copy(TEMPLATE / "README.md", out / "README.md")
    shutil.copy(TEMPLATE / "gitignore", out / ".gitignore")
    shutil.copytree(TEMPLATE / "jupyter", out / "jupyter")
    return notebooks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.classroom.student_release", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"folder to write (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    out = Path(args.out)
    notebooks = build(out)
    print(f"student release: {len(notebooks)} lab notebooks, course/, hpml_lab_utils/ in {out}")
    print(f"students: cd {out} && make setup && make lab   (publish it: cd {out} && git init && git add -A && ...)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
