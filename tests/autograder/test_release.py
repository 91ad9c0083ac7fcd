"""The student release in ``labs/`` is exactly what ``generate`` makes from ``solutions/``, and leaks nothing.

Every lab folder of ``solutions/`` is checked (each carries its ``labNN`` marker).
``labs/`` is compared with a fresh generation into a temporary folder, cell by
cell (sources and nbgrader metadata; volatile metadata ignored). The release
must contain no solution code and no hidden test (distinctive lines of every
solution and hidden block are looked for), and ``validate`` must pass: every
source passes all its tests, every release fails every autograded test (for one lab: every lab's
reference and release are graded once per run by ``tests/graded_labs.py``).
If this fails after editing a lab: ``python -m autograder generate`` (``make release``).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autograder import cli

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "solutions"
RELEASE = ROOT / "labs"

KEPT_CELL_METADATA = {"nbgrader", "deletable", "editable", "tags", "slideshow"}
KEPT_NOTEBOOK_METADATA = {"kernelspec", "language_info", "nbgrader", "hpml"}


def _labs() -> list[str]:
    if not SOURCE.is_dir():
        return []
    return sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def _lab_param(lab: str):
    m = re.match(r"(lab\d+)", lab)
    return pytest.param(lab, marks=[getattr(pytest.mark, m.group(1))] if m else [], id=lab)


LABS = [_lab_param(lab) for lab in _labs()]


def _notebooks(lab: str) -> list[Path]:
    return sorted((SOURCE / lab).glob("*.ipynb"))


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory) -> Path:
    """Every lab generated into a temporary release folder (with a temporary gradebook)."""
    tmp = tmp_path_factory.mktemp("fresh_release")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HPML_GRADING_DIR", str(tmp / "work"))
        mp.delenv("HPML_COURSE_ROOT", raising=False)
        assert cli.main(["generate", "--release-dir", str(tmp / "labs")]) == 0
    return tmp / "labs"


def _regions(source: str, begin: str, end: str) -> tuple[list[list[str]], str]:
    """(the blocks between begin/end marker lines, the source with them removed)."""
    blocks, outside, current = [], [], None
    for line in source.splitlines():
        if begin in line:
            current = []
        elif end in line and current is not None:
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
        else:
            outside.append(line)
    return blocks, "\n".join(outside)


def _distinctive_lines(lab: str, begin: str, end: str) -> list[list[str]]:
    """Per marked block of the lab's sources: its lines (stripped, >= 12 chars) that occur nowhere outside any block.

    Those lines can only reach the release by leaking.
    """
    per_block, outside_text = [], []
    for path in _notebooks(lab):
        for cell in nbformat.read(path, as_version=4).cells:
            sol_blocks, rest = _regions(cell.source, "BEGIN SOLUTION", "END SOLUTION")
            hid_blocks, rest = _regions(rest, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
            outside_text.append(rest)
            if begin == "BEGIN SOLUTION":
                per_block += sol_blocks
                if (
                    cell.metadata.get("nbgrader", {}).get("solution")
                    and not sol_blocks
                    and cell.cell_type == "markdown"
                ):
                    per_block.append(cell.source.splitlines())  # a whole-cell written answer
            else:
                per_block += hid_blocks
    outside = "\n".join(outside_text)
    out = []
    for block in per_block:
        lines = [l.strip() for l in block if len(l.strip()) >= 12 and not l.strip().startswith("#")]
        out.append([l for l in lines if l not in outside])
    return out


def _release_text(lab: str) -> str:
    return "\n".join((RELEASE / lab / p.name).read_text(encoding="utf-8") for p in _notebooks(lab))


def _release_sources(lab: str) -> str:
    return "\n".join(
        c.source for p in _notebooks(lab) for c in nbformat.read(RELEASE / lab / p.name, as_version=4).cells
    )


def _normalized(path: Path) -> dict:
    nb = nbformat.read(path, as_version=4)
    return {
        "kernelspec": nb.metadata.get("kernelspec"),
        "cells": [
            {
                "cell_type": c.cell_type,
                "source": c.source,
                "nbgrader": c.metadata.get("nbgrader"),
                "deletable": c.metadata.get("deletable", True),
                "editable": c.metadata.get("editable", True),
            }
            for c in nb.cells
        ],
    }


def test_there_is_a_lab():
    assert LABS, "no lab notebooks in solutions/"


@pytest.mark.parametrize("lab", LABS)
def test_labs_equals_a_fresh_generate(lab, fresh_release):
    for src in _notebooks(lab):
        committed = RELEASE / lab / src.name
        assert committed.exists(), f"{committed} is missing: run `python -m autograder generate {lab}`"
        fresh = _normalized(fresh_release / lab / src.name)
        have = _normalized(committed)
        assert have["kernelspec"] == fresh["kernelspec"]
        assert len(have["cells"]) == len(fresh["cells"]), (
            f"{committed} is out of date (cell count differs): run `python -m autograder generate {lab}`"
        )
        for i, (a, b) in enumerate(zip(have["cells"], fresh["cells"])):
            assert a == b, (
                f"{committed}: cell {i} differs from a fresh release: run `python -m autograder generate {lab}`"
            )


@pytest.mark.parametrize("lab", LABS)
def test_release_has_no_solution_code(lab):
    text = _release_text(lab)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    blocks = _distinctive_lines(lab, "BEGIN SOLUTION", "END SOLUTION")
    assert blocks, f"{lab} has no solution blocks?"
    assert sum(1 for b in blocks if b) >= len(blocks) // 2, "too few distinctive solution lines to check"
    sources = _release_sources(lab)
    leaked = [line for block in blocks for line in block if line in sources]
    assert not leaked, f"solution lines in the release of {lab}: {leaked[:5]}"


@pytest.mark.parametrize("lab", LABS)
def test_release_has_no_hidden_tests(lab):
    text = _release_text(lab)
    assert "BEGIN HIDDEN TESTS" not in text and "END HIDDEN TESTS" not in text
    blocks = _distinctive_lines(lab, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
    assert blocks and all(blocks), f"every hidden block of {lab} should have a line of its own to look for"
    sources = _release_sources(lab)
    leaked = [line for block in blocks for line in block if line in sources]
    assert not leaked, f"hidden test lines in the release of {lab}: {leaked[:5]}"


@pytest.mark.parametrize("lab", LABS)
def test_release_is_clean(lab, fresh_release):
    for release in (RELEASE, fresh_release):  # lab.toml and mutants.toml stay in solutions/
        assert sorted(p.name for p in (release / lab).iterdir()) == [p.name for p in _notebooks(lab)]
    for src in _notebooks(lab):
        nb = nbformat.read(RELEASE / lab / src.name, as_version=4)
        assert set(nb.metadata) <= KEPT_NOTEBOOK_METADATA, f"volatile notebook metadata: {set(nb.metadata)}"
        assert "version" not in nb.metadata.get("language_info", {})
        assert nb.metadata["hpml"]["generated_from"] == f"solutions/{lab}/{src.name}"  # says what it is made from
        for i, cell in enumerate(nb.cells):
            assert set(cell.metadata) <= KEPT_CELL_METADATA, f"cell {i}: volatile metadata {set(cell.metadata)}"
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"cell {i} carries outputs"


# Every lab's reference and release are run once per test run by their grading (tests/graded_labs.py); the
# `validate` verb itself is checked on the toy course (test_autograder.py) and on one real lab here.
VALIDATED_LAB = "lab08_nas"


@pytest.mark.slow
def test_validate_sources_pass_and_release_fails(tmp_path, monkeypatch, capsys):
    lab = VALIDATED_LAB
    monkeypatch.setenv("HPML_GRADING_DIR", str(tmp_path))
    monkeypatch.delenv("HPML_COURSE_ROOT", raising=False)
    code = cli.main(["validate", lab])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"{lab}: OK" in out
