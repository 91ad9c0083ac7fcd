"""``generate``: the student release of a lab (``nbgrader generate_assignment``), and its record in the gradebook."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from traitlets.config import Config

from ..labs import CourseError, notebook_names
from ..paths import CoursePaths
from .nbgrader_app import load_config, run_nbgrader


def generate_lab(lab: str, paths: CoursePaths | None = None, cfg: Config | None = None) -> list[Path]:
    """``nbgrader generate_assignment`` of one lab into ``paths.release`` (forced); return the released notebooks.

    Also records the lab (cells, points, hidden tests) in the gradebook, which
    autograding needs.
    """
    from nbgrader.converters import GenerateAssignment

    paths = paths or CoursePaths.from_env()
    cfg = cfg or load_config(paths)
    names = notebook_names(lab, paths)
    paths.work.mkdir(parents=True, exist_ok=True)
    run = run_nbgrader(GenerateAssignment, {"assignment_id": lab}, cfg, force=True, create_assignment=True)
    if not run.success:
        raise CourseError(f"generate {lab} failed: {run.last_error()}")
    out = [paths.release / lab / f"{n}.ipynb" for n in names]
    missing = [str(p) for p in out if not p.exists()]
    if missing:
        raise CourseError(f"generate {lab}: nbgrader wrote no {', '.join(missing)}")
    return out


def register_lab(lab: str, paths: CoursePaths, cfg: Config | None = None) -> list[Path]:
    """Record the current source of ``lab`` in the gradebook, through a release into the grading folder.

    The release goes to ``paths.scratch_release`` (never to ``labs/``): the
    worker compares submissions with it to report edited test cells.
    """
    scratch = dataclasses.replace(paths, release=paths.scratch_release)
    if cfg is None:
        return generate_lab(lab, scratch, load_config(scratch))
    cfg = copy.deepcopy(cfg)
    cfg.CourseDirectory.release_directory = str(scratch.release)
    return generate_lab(lab, scratch, cfg)
