"""The suite's tiers and per-lab markers (see the README's "Tests" and the Makefile's header).

- ``make check``: ``-m "not slow"``: lint, hygiene and the pure unit tests, under a minute.
- ``make test``: everything but the ``full`` tests: every lab graded once, every notebook run once,
  the real daemons, the under-load checks at a reduced count.
- ``make test-full`` (``--full``): the ``full`` tests too, and :func:`repeats` at its full count.

``make test`` runs on two pytest-xdist workers: a group of tests (:func:`worker_group`) always runs on one worker,
so whatever a group shares (a lab graded once, a module's fixtures, a notebook's kernel, the hub's users, the Slurm
cluster) is built once.

Each lab of ``solutions/`` gets a marker named for it (``pytest -m lab04``), read from the lab folders.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from xdist.scheduler import LoadScopeScheduling

from autograder.lab_settings import all_labs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", help="the heavy tier: `full` tests and full repeat counts")


def pytest_configure(config: pytest.Config) -> None:
    # Two workers share the cores (and the under-load tests add burners): OpenMP threads that wait asleep, as
    # the grader's kernels do (autograder.grading.scheduler.kernel_threads says why, with figures). Every kernel
    # and worker started from here inherits it.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # each lab's reference results computed once per run, shared by every grading folder (the xdist workers inherit
    # the controller's folder); never reused from an earlier run
    if "PYTEST_XDIST_WORKER" not in os.environ and not os.environ.get("HPML_REFERENCE_CACHE"):
        os.environ["HPML_REFERENCE_CACHE"] = tempfile.mkdtemp(prefix="hpml-reference-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop("HPML_REFERENCE_CACHE", ""), ignore_errors=True))
    for lab in all_labs():
        config.addinivalue_line("markers", f"{lab.short}: checks of {lab.name}")


# Tests that share something bigger than their file, by file: lab01's class graded once (the sample class's
# end-to-end tests read it), the class hub's users and daemons, the one Slurm cluster of this machine
E2E = "tests/autograder/test_grading_e2e.py"
SHARED_GROUPS = {
    "tests/deploy/test_hub.py": "hub",
    "tests/deploy/test_hub_browser.py": "hub",
    "tests/deploy/test_exchange.py": "hub",
    "tests/deploy/test_hub_culler.py": "hub",
    "tests/deploy/test_hub_courses.py": "hub",
    "tests/autograder/test_slurm.py": "slurm",
}
GRADED_LABS = "tests/autograder/test_grading_labs.py"  # parametrized by lab: one group per lab

# The long poles (make test --durations), started first so that the two workers finish together
LONGEST_FIRST = (
    "lab10_parallel_training",
    "tests/notebooks/test_speed_under_load.py",  # second: it runs beside lab10's grading, the load it counts on
    "lab11_custom_kernels",
    "tests/autograder/test_adversarial.py",
    "hub",
    "lab05_distributed",
    "slurm",
    "lab03_pytorch_performance",
)


def worker_group(nodeid: str) -> str:
    """The group a test runs in (always on one worker): its file, unless it shares more (:data:`SHARED_GROUPS`,
    a graded lab's tests, the adversarial class on Slurm). A module's fixtures and nbval's kernel per notebook
    are built once per group."""
    path, _, name = nodeid.partition("::")
    if path == GRADED_LABS and name.endswith("]"):
        return name.rsplit("[", 1)[1][:-1]
    if path == "tests/autograder/test_adversarial.py" and "[slurm" in name:
        return "slurm"
    if path == E2E:
        from autograder.sample_class import LAB  # imports nbgrader: only where needed

        return LAB
    return SHARED_GROUPS.get(path, path)


class GroupScheduling(LoadScopeScheduling):
    """pytest-xdist's ``loadscope`` with :func:`worker_group` as the scope (its ``xdist_group`` marks do not reach
    the scheduler under pytest 9.2)."""

    def _split_scope(self, nodeid: str) -> str:
        return worker_group(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log) -> GroupScheduling:
    return GroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: daemons and browsers count as slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    full = config.getoption("--full")
    skip = pytest.mark.skip(reason="the heavy tier: make test-full (pytest --full)")
    for item in items:
        if any(item.get_closest_marker(m) for m in ("hub", "browser", "notebooks", "full")):
            item.add_marker(pytest.mark.slow)
        if "full" in item.keywords and not full:
            item.add_marker(skip)
    first = {group: rank for rank, group in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: first.get(worker_group(item.nodeid), len(first)))  # stable: cells keep their order


@pytest.fixture(scope="session")
def repeats(request: pytest.FixtureRequest):
    """``repeats(reduced, full)``: how many times an under-load check runs in this tier."""
    full = request.config.getoption("--full")
    return lambda reduced, full_count: full_count if full else reduced


@pytest.fixture(scope="session")
def graded_lab(tmp_path_factory):
    """``graded_lab(name)``: the lab's class graded once this run (:mod:`tests.graded_labs`), shared by every test."""
    from autograder.grading.scheduler import default_jobs
    from tests.graded_labs import grade_lab

    done = {}

    def grade(name: str):
        if name not in done:
            done[name] = grade_lab(name, tmp_path_factory.mktemp(f"graded-{name}"), jobs=default_jobs())
        return done[name]

    return grade
