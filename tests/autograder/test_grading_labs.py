"""End to end through the real nbgrader, every lab (lab01's sample class has its own, fuller file).

For each lab: the reference solution gets every autograded point, the untouched
release gets zero, and the mutants of ``mutants.CI_SUBSET`` (plausible wrong
answers from the mutation suite, ``tests/mutants``) lose exactly the points of
the test cells they name. Points are read from the source's metadata. The whole
suite runs with ``make mutants``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import labs
from tests import mutants

ROOT = Path(__file__).resolve().parents[2]

LABS = [pytest.param(lab, marks=getattr(pytest.mark, lab.split("_")[0]), id=lab) for lab in mutants.CI_SUBSET]

pytestmark = pytest.mark.slow


def autograded_points(source: Path) -> dict[str, float]:
    return {c.grade_id: c.points for c in labs.grade_cells(source) if c.autograded}


@pytest.fixture(scope="module", params=LABS)
def graded(request, tmp_path_factory):
    lab = request.param
    chosen = [m for m in mutants.load(lab) if m.name in mutants.CI_SUBSET[lab]]
    assert len(chosen) == len(mutants.CI_SUBSET[lab]), f"{lab}: CI_SUBSET names a mutant that tests/mutants lacks"
    results = mutants.grade_class(lab, chosen, tmp_path_factory.mktemp(f"grading-{lab}"), jobs=2, untouched=True)
    source = ROOT / "solutions" / lab / f"{lab}.ipynb"
    return {"lab": lab, "results": results, "points": autograded_points(source), "mutants": chosen}


def autograded_score(result, points: dict[str, float]) -> float:
    return sum(points.values()) - sum(points[t] for t in result.failed_tests)


def test_reference_solution_gets_every_autograded_point(graded):
    r = graded["results"][mutants.REFERENCE]
    assert r.status == "graded", r.message
    assert r.failed_tests == [], f"{graded['lab']}: the reference solution failed {r.failed_tests}"
    assert r.score == sum(graded["points"].values())  # from the gradebook: written answers await manual grading


def test_untouched_release_gets_zero(graded):
    r = graded["results"][mutants.UNTOUCHED]
    assert r.status == "graded", r.message
    assert sorted(r.failed_tests) == sorted(graded["points"]), "every autograded cell must fail on the release"
    assert r.score == 0


def test_mutants_lose_exactly_their_cells(graded):
    for m in graded["mutants"]:
        r = graded["results"][m.name]
        assert r.status == "graded", r.message
        assert sorted(r.failed_tests) == sorted(m.fails), f"{m.name} ({m.why})"
        expected = sum(graded["points"].values()) - sum(graded["points"][t] for t in m.fails)
        assert autograded_score(r, graded["points"]) == expected
        assert r.score == expected
