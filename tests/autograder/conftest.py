"""Fixtures shared by the autograder tests."""

from __future__ import annotations

import nbformat
import pytest

from autograder.paths import CoursePaths
from tests.autograder.toy_course import TOY, toy_notebook


@pytest.fixture
def toy_course(tmp_path, monkeypatch) -> CoursePaths:
    """A course root with solutions/toylab/toylab.ipynb and a grading folder, both temporary."""
    root = tmp_path / "course"
    (root / "solutions" / TOY).mkdir(parents=True)
    nbformat.write(toy_notebook(), root / "solutions" / TOY / f"{TOY}.ipynb")
    monkeypatch.setenv("HPML_COURSE_ROOT", str(root))
    monkeypatch.setenv("HPML_GRADING_DIR", str(tmp_path / "work"))
    return CoursePaths.from_env()


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A one-node Slurm cluster on this machine (root, slurm-wlm), memory limits by cgroups, two stand-in GPUs;
    skips where impossible."""
    from deploy.slurm import cluster

    why = cluster.why_not()
    if why:
        pytest.skip(f"no Slurm cluster: {why}")
    folder = tmp_path_factory.mktemp("slurm")
    try:
        conf = cluster.start(folder, memory_limits=True, stand_in_gpus=2)
    except SystemExit as exc:
        pytest.skip(f"the Slurm cluster did not start here: {exc}")
    try:
        yield conf
    finally:
        cluster.stop(folder)
