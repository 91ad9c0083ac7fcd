"""The suite's tiers and per-lab markers (see the README's "Tests" and the Makefile's header).

- ``make check``: ``-m "not slow"``: lint, hygiene and the pure unit tests, under a minute.
- ``make test``: everything but the ``full`` tests: every lab graded once, every notebook run once,
  the real daemons, the under-load checks at a reduced count.
- ``make test-full`` (``--full``): the ``full`` tests too, and :func:`repeats` at its full count.

Each lab of ``solutions/`` gets a marker named for it (``pytest -m lab04``), read from the lab folders.
"""

from __future__ import annotations

import pytest

from autograder.lab_settings import all_labs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", help="the heavy tier: `full` tests and full repeat counts")


def pytest_configure(config: pytest.Config) -> None:
    for lab in all_labs():
        config.addinivalue_line("markers", f"{lab.short}: checks of {lab.name}")


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: daemons and browsers count as slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    full = config.getoption("--full")
    skip = pytest.mark.skip(reason="the heavy tier: make test-full (pytest --full)")
    for item in items:
        if any(item.get_closest_marker(m) for m in ("hub", "browser", "notebooks", "full")):
            item.add_marker(pytest.mark.slow)
        if "full" in item.keywords and not full:
            item.add_marker(skip)


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
