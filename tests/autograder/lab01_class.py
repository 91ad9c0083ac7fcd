"""lab01's sample class in a temporary grading folder, for the end-to-end tests that grade a real lab.

``test_grading_e2e``, ``test_adversarial`` and ``test_repeat_grading`` each grade
it once for their module; :func:`lab01_class` is the set-up they share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import sample_class
from autograder.paths import CoursePaths
from autograder.pipeline import generate

LAB = sample_class.LAB
ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "solutions" / LAB / f"{LAB}.ipynb"


@dataclass(frozen=True)
class SampleClass:
    paths: CoursePaths  # the grading folder's layout
    release: Path  # the fresh release notebook the students started from
    folder: Path  # one sub-folder per student (perfect, one_wrong, untouched, not_json)


@contextlib.contextmanager
def lab01_class(work: Path, env: dict[str, str | None] | None = None) -> Iterator[SampleClass]:
    """Register lab01 from the current source in grading folder ``work`` and build its sample class in ``work/class``.

    Inside the block ``$HPML_GRADING_DIR`` is ``work``, the course is this
    repository, and the variables of ``env`` are set (unset where the value is
    None); all are restored after.
    """
    if not SOURCE.exists():
        pytest.fail(f"{SOURCE} is missing: the lab these tests grade is part of the course")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HPML_GRADING_DIR", str(work))
        mp.delenv("HPML_COURSE_ROOT", raising=False)
        for name, value in (env or {}).items():
            if value is None:
                mp.delenv(name, raising=False)
            else:
                mp.setenv(name, value)
        paths = CoursePaths.from_env()
        release = generate.register_lab(LAB, paths)[0]
        folder = work / "class"
        sample_class.build_sample_class(folder, SOURCE, release)
        yield SampleClass(paths=paths, release=release, folder=folder)
