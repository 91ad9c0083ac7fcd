"""Where the course lives and where grading writes: one place for every path the autograder uses.

- The **course root** is the repository: ``$HPML_COURSE_ROOT`` if set, else the
  folder that holds this package, provided it has a ``solutions/`` folder.
- ``solutions/`` is nbgrader's source directory and ``labs/`` its release
  directory (both under the course root, both in git).
- Everything grading produces (submissions, autograded copies, feedback, the
  sqlite gradebook, the per-student statuses) goes to the **grading folder**:
  ``$HPML_GRADING_DIR`` if set, else ``autograder/work/`` (git-ignored).

Layout of the grading folder::

    gradebook.db            nbgrader's gradebook (points only)
    statuses.json           per-student statuses (graded, invalid notebook, ...)
    submitted/<student>/<lab>/<lab notebook>.ipynb
    autograded/<student>/<lab>/...
    feedback/<student>/<lab>/<lab notebook>.html
    logs/<lab>/<student>.log  nbgrader's log of the last grading of that student
    release/<lab>/          scratch release used to register a lab in the gradebook
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CONFIG_FILE = PACKAGE_DIR / "nbgrader_config.py"

SOURCE_DIRNAME = "solutions"
RELEASE_DIRNAME = "labs"


class CourseRootNotFound(RuntimeError):
    """Raised when neither ``$HPML_COURSE_ROOT`` nor the package location gives a course root."""


def course_root() -> Path:
    """The repository that holds ``solutions/`` and ``labs/`` (see the module docstring)."""
    env = os.environ.get("HPML_COURSE_ROOT", "").strip()
    if env:
        root = Path(env).expanduser().resolve()
        if not (root / SOURCE_DIRNAME).is_dir():
            raise CourseRootNotFound(f"HPML_COURSE_ROOT={env} has no {SOURCE_DIRNAME}/ folder")
        return root
    root = PACKAGE_DIR.parent
    if (root / SOURCE_DIRNAME).is_dir():
        return root
    raise CourseRootNotFound(
        f"cannot find the course: {root} has no {SOURCE_DIRNAME}/ folder; "
        "set HPML_COURSE_ROOT to the repository (the folder holding solutions/ and labs/)"
    )


def grading_dir() -> Path:
    """The git-ignored working folder for grading: ``$HPML_GRADING_DIR`` or ``autograder/work``."""
    env = os.environ.get("HPML_GRADING_DIR", "").strip()
    if env:
        return Path(env).expanduser().resolve()
    return PACKAGE_DIR / "work"


@dataclass(frozen=True)
class CoursePaths:
    """All the folders of one grading set-up (absolute paths).

    ``release`` is where ``generate`` writes (``labs/`` unless told otherwise, e.g.
    a temporary folder in a test that compares a fresh release with ``labs/``).
    """

    root: Path
    work: Path
    release: Path

    @classmethod
    def from_env(cls, *, work: Path | str | None = None, release: Path | str | None = None) -> CoursePaths:
        root = course_root()
        return cls(
            root=root,
            work=Path(work).resolve() if work is not None else grading_dir(),
            release=Path(release).resolve() if release is not None else root / RELEASE_DIRNAME,
        )

    @property
    def source(self) -> Path:
        return self.root / SOURCE_DIRNAME

    @property
    def submitted(self) -> Path:
        return self.work / "submitted"

    @property
    def autograded(self) -> Path:
        return self.work / "autograded"

    @property
    def feedback(self) -> Path:
        return self.work / "feedback"

    @property
    def scratch_release(self) -> Path:
        return self.work / "release"

    @property
    def logs(self) -> Path:
        return self.work / "logs"

    @property
    def gradebook(self) -> Path:
        return self.work / "gradebook.db"

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.gradebook}"

    @property
    def statuses(self) -> Path:
        return self.work / "statuses.json"
