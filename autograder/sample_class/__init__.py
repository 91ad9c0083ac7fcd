"""The sample class: four synthetic lab01 submissions, built from the solution and the release so they never drift.

- ``perfect``: the release with every answer cell replaced by the solution
  (solution markers removed): what a student who solved everything hands in.
- ``one_wrong``: ``perfect``, except that ``average_throughput`` returns the
  arithmetic mean of the per-run throughputs (the plausible wrong answer; the
  right one is the harmonic mean, total work / total time). It should lose
  exactly the points of ``test_average_throughput``.
- ``untouched``: the release as is; it should score zero on every test.
- ``not_json``: ``perfect``'s file cut in half; status ``invalid notebook``.

The adversarial class (:mod:`.adversarial`: infinite loops, a kernel that
exits, memory and fork bombs, edited tests, monkeypatched comparisons, ...)
is built the same way, from the same solution.

Build them with ``python -m autograder.sample_class OUT [--adversarial]`` (see README.md);
``python -m autograder demo`` builds them from a fresh release and grades them.
"""

from __future__ import annotations

from .adversarial import CASES, build_adversarial_class
from .build import (
    LAB,
    STUDENTS,
    WRONG_FUNCTION,
    WRONG_TEST,
    build_sample_class,
    check_expected,
    one_wrong_notebook,
    run_demo,
    solved_notebook,
    strip_solution_markers,
)

__all__ = [
    "CASES",
    "build_adversarial_class",
    "LAB",
    "STUDENTS",
    "WRONG_FUNCTION",
    "WRONG_TEST",
    "build_sample_class",
    "check_expected",
    "one_wrong_notebook",
    "run_demo",
    "solved_notebook",
    "strip_solution_markers",
]
