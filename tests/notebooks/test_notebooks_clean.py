"""Notebooks are committed without outputs or execution counts, and every one is valid nbformat."""

import subprocess
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]


def tracked_notebooks() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        paths = [ROOT / line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        paths = []
    if not paths:  # not a git checkout: fall back to the folders that hold notebooks
        paths = [p for folder in ("course", "labs", "solutions") for p in (ROOT / folder).rglob("*.ipynb")]
    return [p for p in paths if ".ipynb_checkpoints" not in p.parts and p.exists()]


NOTEBOOKS = tracked_notebooks()


def test_there_are_notebooks():
    assert any("solutions" in p.parts for p in NOTEBOOKS), "no solution notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_has_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs or execution counts; run `make strip`"
