"""Every week's notebook has the course's shape: numbered sections, a self-check, exercises, a summary with
further reading, and the course's kernel."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
WEEKS = sorted((ROOT / "course").glob("week*.ipynb"))


def headings(nb) -> list[str]:
    return [
        line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines() if line.startswith("## ")
    ]


def test_there_are_fifteen_weeks():
    assert len(WEEKS) == 15, [p.name for p in WEEKS]


@pytest.mark.parametrize("path", WEEKS, ids=lambda p: p.stem)
def test_week_ends_with_self_check_exercises_and_summary(path):
    nb = nbformat.read(path, 4)
    found = headings(nb)
    numbered = [int(m.group(1)) for h in found for m in [re.match(r"## (\d+)\. ", h)] if m]
    assert numbered == list(range(1, len(numbered) + 1)), f"{path.name}: sections numbered {numbered}"
    kinds = [k for h in found for k in ("Self-check", "Exercises (predict, then measure)", "Summary") if k in h]
    if path.stem != "week15_final_project":  # the project guide has no self-check
        assert kinds == ["Self-check", "Exercises (predict, then measure)", "Summary"], f"{path.name}: {kinds}"
    assert found[-1] == "## Summary", f"{path.name}: the Summary is not the last section"


@pytest.mark.parametrize("path", WEEKS, ids=lambda p: p.stem)
def test_exercises_ask_for_a_prediction_and_the_summary_gives_reading(path):
    nb = nbformat.read(path, 4)
    exercises = next(c.source for c in nb.cells if "Exercises (predict, then measure)" in c.source)
    items = re.findall(r"^\d+\. ", exercises, re.M)
    assert len(items) >= 3, f"{path.name}: {len(items)} exercises"
    assert exercises.lower().count("predict") >= len(items) - 1, f"{path.name}: exercises that predict nothing"
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    summary = text[text.index("## Summary") :]
    assert "Further reading:" in summary, f"{path.name}: no further reading in the Summary"


@pytest.mark.parametrize("path", WEEKS, ids=lambda p: p.stem)
def test_every_week_runs_on_the_course_kernel(path):
    assert nbformat.read(path, 4).metadata["kernelspec"]["name"] == "hpml"
