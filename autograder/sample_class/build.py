"""Builder of the sample class (see the package docstring and README.md)."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import nbformat

from ..grading.autograde import autograde_class
from ..labs import CourseError, lab_grade_cells, source_notebooks
from ..paths import CoursePaths
from ..pipeline.export import export_grades
from ..pipeline.feedback import feedback_lab
from ..pipeline.generate import register_lab
from ..records import GRADED, INVALID_NOTEBOOK, GradeResult

LAB = "lab01_benchmarking"
WRONG_FUNCTION = "average_throughput"
WRONG_TEST = f"test_{WRONG_FUNCTION}"
STUDENTS = ("perfect", "one_wrong", "untouched", "not_json")

_MARKER = re.compile(r"^\s*(###|#|===)?\s*(BEGIN|END) SOLUTION\s*(===)?\s*$")


def strip_solution_markers(source: str) -> str:
    """Remove the ``### BEGIN SOLUTION`` / ``### END SOLUTION`` lines, keeping the code between them."""
    return "\n".join(line for line in source.split("\n") if not _MARKER.match(line))


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _is_answer(cell) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


def solved_notebook(source: Path, release: Path) -> nbformat.NotebookNode:
    """The release with every answer cell's source replaced by the solution (markers removed)."""
    src = nbformat.read(source, as_version=4)
    nb = nbformat.read(release, as_version=4)
    solutions = {_grade_id(c): c.source for c in src.cells if _is_answer(c)}
    for cell in nb.cells:
        if _is_answer(cell):
            gid = _grade_id(cell)
            if gid not in solutions:
                raise ValueError(f"{release.name}: answer cell {gid!r} has no counterpart in {source.name}")
            cell.source = strip_solution_markers(solutions[gid])
    return nb


def _function_span(source: str, name: str) -> tuple[int, int, list[str]]:
    """(first line, last line + 1, argument names) of ``def name`` in a cell (0-based lines)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            return start, node.end_lineno, [a.arg for a in node.args.posonlyargs + node.args.args]
    raise LookupError(name)


def one_wrong_notebook(solved: nbformat.NotebookNode, function: str = WRONG_FUNCTION) -> nbformat.NotebookNode:
    """``solved`` with ``function(work, times)`` returning the arithmetic mean of the throughputs ``work / t``."""
    nb = nbformat.from_dict(solved)  # a deep copy
    for cell in nb.cells:
        if cell.cell_type != "code" or not _is_answer(cell) or f"def {function}" not in cell.source:
            continue
        start, end, args = _function_span(cell.source, function)
        if len(args) < 2:
            raise ValueError(f"{function} takes {args}; expected (work, times)")
        work, times = args[0], args[1]
        lines = cell.source.split("\n")
        indent = re.match(r"\s*", lines[start]).group(0)
        wrong = [
            f"def {function}({work}, {times}):",
            '    """Sample class `one_wrong`: the arithmetic mean of the per-run throughputs (the plausible wrong answer)."""',
            f"    rates = [{work} / t for t in {times}]",
            "    return float(sum(rates) / len(rates))",
        ]
        cell.source = "\n".join(lines[:start] + [indent + w for w in wrong] + lines[end:])
        return nb
    raise LookupError(f"no answer cell defines {function}()")


def build_sample_class(out: Path, source: Path, release: Path, wrong_function: str = WRONG_FUNCTION) -> dict[str, Path]:
    """Write ``out/<student>/<notebook>.ipynb`` for the four students of :data:`STUDENTS`; return their files."""
    out = Path(out)
    name = Path(release).name
    perfect = solved_notebook(Path(source), Path(release))
    files = {s: out / s / name for s in STUDENTS}
    for path in files.values():
        if path.parent.exists():
            shutil.rmtree(path.parent)
        path.parent.mkdir(parents=True)
    nbformat.write(perfect, files["perfect"])
    nbformat.write(one_wrong_notebook(perfect, wrong_function), files["one_wrong"])
    shutil.copyfile(release, files["untouched"])
    text = files["perfect"].read_text(encoding="utf-8")
    files["not_json"].write_text(text[: len(text) // 2], encoding="utf-8")  # a truncated upload
    return files


def run_demo(paths: CoursePaths, lab: str = LAB, progress=print) -> list[GradeResult]:
    """Build the sample class from a fresh release into ``paths.work``, grade it, write feedback and a CSV.

    ``paths.work`` is emptied first: it is the demo's own grading folder.
    """
    if paths.work.exists():
        shutil.rmtree(paths.work)
    source = source_notebooks(lab, paths)
    if len(source) != 1:
        raise CourseError(f"the sample class expects {lab} to have one notebook, it has {len(source)}")
    release = register_lab(lab, paths)[0]
    folder = paths.work / "sample_class"
    build_sample_class(folder, source[0], release)
    results = autograde_class(lab, folder, paths, progress=progress)
    feedback_lab(lab, paths, progress=None)
    export_grades(paths.work / "grades.csv", paths)
    return results


def check_expected(results: list[GradeResult], paths: CoursePaths, lab: str = LAB) -> list[str]:
    """What is wrong with the sample class's grades (empty list: all as expected)."""
    cells = [c for c in lab_grade_cells(lab, paths) if c.autograded]
    auto = sum(c.points for c in cells)
    wrong = sum(c.points for c in cells if c.grade_id == WRONG_TEST)
    by = {r.student_id: r for r in results}
    expect = {
        "perfect": (GRADED, auto, []),
        "one_wrong": (GRADED, auto - wrong, [WRONG_TEST]),
        "untouched": (GRADED, 0.0, [c.grade_id for c in cells]),
        "not_json": (INVALID_NOTEBOOK, 0.0, []),
    }
    problems = []
    for sid, (status, score, failed) in expect.items():
        r = by.get(sid)
        if r is None:
            problems.append(f"{sid}: not graded")
            continue
        if r.status != status:
            problems.append(f"{sid}: status {r.status!r}, expected {status!r} ({r.message})")
        if r.score is None or abs(r.score - score) > 1e-9:
            problems.append(f"{sid}: {r.score} points, expected {score:g}")
        if status == GRADED and r.failed_tests != failed:
            problems.append(f"{sid}: failed tests {r.failed_tests}, expected {failed}")
    return problems
