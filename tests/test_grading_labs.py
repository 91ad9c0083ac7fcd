"""End to end through the real nbgrader for the labs after lab01 (lab01 has its own, fuller file).

For each lab: the reference solution gets every autograded point, the untouched
release gets zero, and a plausible one-function mutant loses exactly the points
of that function's test cell. Points are read from the source's metadata.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder import pipeline
from autograder.paths import CoursePaths
from autograder.records import StatusStore
from autograder.sample_class.build import solved_notebook

ROOT = Path(__file__).resolve().parents[1]

# lab -> (answer cell of the mutated function, its test cell, (text in the solution, plausible wrong text))
MUTANTS = {
    "lab02_profiling": ("answer_adam_step", "test_adam_step",
                        ("denom = st[\"v\"].sqrt() / math.sqrt(1 - beta2 ** t) + eps", "denom = st[\"v\"].sqrt() + eps")),
    "lab03_pytorch_performance": ("answer_pairwise_dist_numpy", "test_pairwise_dist_numpy",
                                  ('return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))',
                                   'return np.einsum("ijk,ijk->ij", diff, diff)')),
    # the tiled matmul forgets the bound check on its write to C: the simulator's IndexError fails its cell only
    "lab04_cuda_numba": ("answer_matmul_tiled_kernel", "test_matmul_tiled_kernel",
                         ("    if row < n and col < m:\n        C[row, col] = acc", "    C[row, col] = acc")),
    # reduce-scatter overwrites instead of adding: wrong sums in real processes, no deadlock
    "lab05_distributed": ("answer_ring_allreduce", "test_ring_allreduce",
                          ("chunks[recv_i].add_(buffer)", "chunks[recv_i].copy_(buffer)")),
    # distillation without the T^2 factor on the soft-label term
    "lab06_compression": ("answer_distillation_loss", "test_distillation_loss",
                          ("return alpha * T ** 2 * kl + (1 - alpha) * ce", "return alpha * kl + (1 - alpha) * ce")),
    # LoRA scaled by alpha instead of alpha / r
    "lab07_transformers": ("answer_lora_linear", "test_lora_linear",
                           ("self.scale = alpha / r", "self.scale = alpha")),
    # depthwise MACs counted as if the convolution were dense (forgets the groups)
    "lab08_nas": ("answer_count_macs", "test_count_macs",
                  ("total += batch * h * w * c_in * k * k  # depthwise", "total += batch * h * w * c_in * c_in * k * k  # depthwise")),
}
LABS = [pytest.param(lab, marks=getattr(pytest.mark, lab.split("_")[0]), id=lab) for lab in MUTANTS]

pytestmark = pytest.mark.slow


def autograded_points(source: Path) -> dict[str, float]:
    return {c.grade_id: c.points for c in pipeline.grade_cells(source) if c.autograded}


def mutant_notebook(solved: nbformat.NotebookNode, answer_id: str, right: str, wrong: str) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(solved)
    [cell] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id]
    assert right in cell.source, f"{answer_id}: the mutation no longer applies to the solution; update MUTANTS"
    cell.source = cell.source.replace(right, wrong)
    return nb


@pytest.fixture(scope="module", params=LABS)
def graded(request, tmp_path_factory):
    lab = request.param
    source = ROOT / "solutions" / lab / f"{lab}.ipynb"
    answer_id, test_id, (right, wrong) = MUTANTS[lab]
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
            "mutant": mutant_notebook(solved, answer_id, right, wrong),
        }
        for student, nb in submissions.items():
            (work / "class" / student).mkdir(parents=True)
            nbformat.write(nb, work / "class" / student / f"{lab}.ipynb")
        pipeline.autograde_class(lab, work / "class", paths, progress=None, jobs=2)
        results = {r.student_id: r for r in StatusStore(paths.statuses).results(lab)}
        yield {"lab": lab, "results": results, "points": autograded_points(source), "test_id": test_id}


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


def test_one_function_mutant_loses_exactly_its_cell(graded):
    r = graded["results"]["mutant"]
    assert r.status == "graded", r.message
    assert r.failed_tests == [graded["test_id"]]
    expected = sum(graded["points"].values()) - graded["points"][graded["test_id"]]
    assert autograded_score(r, graded["points"]) == expected
    assert r.score == expected
