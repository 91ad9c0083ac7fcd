"""End to end through the real nbgrader, every lab (lab01's sample class has its own, fuller file).

For each lab: the reference solution gets every autograded point, the untouched
release gets zero, and the mutants of ``mutants.CI_SUBSET`` (plausible wrong
answers from the mutation suite, ``tests/mutants``) lose exactly the points of
the test cells they name. Points are read from the source's metadata. The whole
suite runs with ``make mutants``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder import pipeline
from autograder.paths import CoursePaths
from autograder.records import StatusStore
from autograder.sample_class.build import solved_notebook

import mutants

ROOT = Path(__file__).resolve().parents[1]

LABS = [pytest.param(lab, marks=getattr(pytest.mark, lab.split("_")[0]), id=lab) for lab in mutants.CI_SUBSET]

pytestmark = pytest.mark.slow


def autograded_points(source: Path) -> dict[str, float]:
    return {c.grade_id: c.points for c in pipeline.grade_cells(source) if c.autograded}


@pytest.fixture(scope="module", params=LABS)
def graded(request, tmp_path_factory):
    lab = request.param
    source = ROOT / "solutions" / lab / f"{lab}.ipynb"
    chosen = [m for m in mutants.load(lab) if m.name in mutants.CI_SUBSET[lab]]
    assert len(chosen) == len(mutants.CI_SUBSET[lab]), f"{lab}: CI_SUBSET names a mutant that tests/mutants lacks"
    work = tmp_path_factory.mktemp(f"grading-{lab}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HPML_GRADING_DIR", str(work))
        mp.delenv("HPML_COURSE_ROOT", raising=False)
        paths = CoursePaths.from_env()
        release = pipeline.register_lab(lab, paths)[0]
        solved = solved_notebook(source, release)
        submissions = {
            "perfect": solved,
            "untouched": nbformat.read(release, as_version=4),
        } | {m.name: mutants.apply(solved, m) for m in chosen}
        for student, nb in submissions.items():
            (work / "class" / student).mkdir(parents=True)
            nbformat.write(nb, work / "class" / student / f"{lab}.ipynb")
        pipeline.autograde_class(lab, work / "class", paths, progress=None, jobs=2)
        results = {r.student_id: r for r in StatusStore(paths.statuses).results(lab)}
        yield {"lab": lab, "results": results, "points": autograded_points(source), "mutants": chosen}


def autograded_score(result, points: dict[str, float]) -> float:
    return sum(points.values()) - sum(points[t] for t in result.failed_tests)


def test_reference_solution_gets_every_autograded_point(graded):
    r = graded["results"]["perfect"]
    assert r.status == "graded", r.message
    assert r.failed_tests == [], f"{graded['lab']}: the reference solution failed {r.failed_tests}"
    assert r.score == sum(graded["points"].values())  # from the gradebook: written answers await manual grading


def test_untouched_release_gets_zero(graded):
    r = graded["results"]["untouched"]
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
