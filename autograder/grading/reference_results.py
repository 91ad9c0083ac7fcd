"""The reference solution's recorded results: what the students' recorded results are judged against.

Before a lab whose hidden tests record results (:mod:`hpml_lab_utils.recorded`)
is graded, :func:`reference_results` runs the lab's source notebooks (the
reference solution with every test) in a clean kernel of the grader's, not a
student's, with the grading kernels' environment, and keeps each test cell's
records in the grading folder (hidden from student kernels by the sandbox).
The file is named for a hash of the lab's source notebooks, the course
package and the kernels' environment: it is reused while those are unchanged,
and a fresh grading folder computes it afresh. The test suite shares one
computation per lab among the grading folders of one run
(``$HPML_REFERENCE_CACHE``, a folder of that run), so every CI run computes
each reference once.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from hpml_lab_utils.recorded import RECORD_ENV

import nbformat

from ..labs import CourseError, source_notebooks
from ..limits import Limits
from ..paths import PACKAGE_DIR, CoursePaths
from ..pipeline.nbgrader_app import ENV_FOR_KERNELS, environment
from ..pipeline.verdicts import notebook_records
from .versions import digest

FORMAT = 1
CACHE_ENV = "HPML_REFERENCE_CACHE"
LEFT_OUT = shutil.ignore_patterns("lab.toml", "mutants.toml", "torch_extensions", ".ipynb_checkpoints", "__pycache__")


def uses_records(lab: str, paths: CoursePaths) -> bool:
    """Whether any test cell of the lab records results for the grader."""
    return any("hpml_lab_utils.recorded" in p.read_text(encoding="utf-8") for p in source_notebooks(lab, paths))


def reference_key(lab: str, paths: CoursePaths) -> str:
    """Hash of what the reference's records depend on: the source notebooks, the course package, the kernels' env."""
    package = sorted((PACKAGE_DIR.parent / "hpml_lab_utils").glob("*.py"))
    sources = source_notebooks(lab, paths)
    env = sorted(_kernel_env().items())
    return digest([FORMAT, *env, *(p.name for p in sources + package), *(p.read_bytes() for p in sources + package)])


def reference_file(lab: str, paths: CoursePaths) -> Path:
    """Where the lab's reference records are kept: the grading folder, or ``$HPML_REFERENCE_CACHE`` when that
    folder is set and writable (a test run shares one computation per lab among its grading folders)."""
    shared = os.environ.get(CACHE_ENV, "").strip()
    folder = Path(shared) if shared and os.access(shared, os.W_OK) else paths.work / "reference"
    return folder / f"{lab}-{reference_key(lab, paths)[:16]}.json"


def reference_results(lab: str, paths: CoursePaths, limits: Limits) -> Path | None:
    """The file of the lab's reference records (computed now if missing); None when its tests record nothing.

    Raises :class:`CourseError` when a cell of the reference raises: the source needs fixing before grading.
    """
    if not uses_records(lab, paths):
        return None
    target = reference_file(lab, paths)
    if target.is_file():
        return target
    sources = source_notebooks(lab, paths)
    run = paths.work / "reference" / f"{lab}-run-{os.getpid()}"
    if run.exists():
        shutil.rmtree(run)
    shutil.copytree(sources[0].parent, run, ignore=LEFT_OUT)
    records: dict[str, list[dict]] = {}
    for source in sources:
        nb = _execute(run / source.name, limits)
        records |= notebook_records(nb)
    shutil.rmtree(run, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps({"lab": lab, "records": records}), encoding="utf-8")
    os.replace(tmp, target)
    return target


def _kernel_env() -> dict[str, str]:
    # what a grading kernel sees that can change a result: fast mode, nbgrader's marker, recording on
    return ENV_FOR_KERNELS | {"NBGRADER_EXECUTION": "autograde", RECORD_ENV: "1"}


def _execute(path: Path, limits: Limits) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=limits.cell_timeout_s,
        kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
        resources={"metadata": {"path": str(path.parent)}},
        allow_errors=True,
    )
    with environment(_kernel_env()):
        client.execute()
    for i, cell in enumerate(nb.cells):
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if cell.cell_type == "code" and errors:
            raise CourseError(
                f"the reference solution of {path.stem} raised in cell {i} "
                f"({errors[0].get('ename')}: {errors[0].get('evalue')}): fix the source before grading"
            )
    return nb
