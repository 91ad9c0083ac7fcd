"""``validate``: every source notebook passes all its tests, every released notebook fails every test cell."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from traitlets.config import Config

from ..labs import grade_cells, source_notebooks
from ..paths import CoursePaths
from .kernels import ensure_kernels
from .nbgrader_app import kernel_env, load_config


@dataclass
class LabValidation:
    lab: str
    test_cells: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_lab(lab: str, paths: CoursePaths | None = None, cfg: Config | None = None) -> LabValidation:
    """Every source notebook passes all its tests; every released notebook fails every autograded test.

    Uses nbgrader's ``Validator`` (``nbgrader validate`` exits 0 even when tests
    fail) with the grading rule of :mod:`autograder.pipeline.scoring` (stderr output does
    not fail a test cell), and ``invert=True`` for the release.
    """
    from .scoring import ValidatorByTests as Validator

    paths = paths or CoursePaths.from_env()
    cfg = cfg or load_config(paths)
    report = LabValidation(lab)
    sources = source_notebooks(lab, paths)
    ensure_kernels(sources)
    for src in sources:
        report.test_cells += sum(1 for c in grade_cells(src) if c.autograded)
        rel = paths.release / lab / src.name
        with kernel_env(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = Validator(config=cfg).validate(str(src))
            for kind in ("type_changed", "changed", "failed"):
                for cell in res.get(kind, []):
                    detail = (cell.get("raw_error") or "").strip().splitlines()[-1:] or [""]
                    report.problems.append(
                        f"source {src.name}: {kind} test cell: {_first_line(cell['source'])} {detail[0]}".rstrip()
                    )
            if not rel.exists():
                report.problems.append(f"release {rel} is missing: run `python -m autograder generate {lab}`")
                continue
            res = Validator(config=cfg, invert=True).validate(str(rel))
            for kind in ("type_changed", "changed", "passed"):
                for cell in res.get(kind, []):
                    report.problems.append(
                        f"release {rel.name}: test cell {kind} "
                        f"(the untouched release must fail it): {_first_line(cell['source'])}"
                    )
    return report


def _first_line(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip()]
    return (lines[0][:80] + " ...") if lines else "<empty>"
