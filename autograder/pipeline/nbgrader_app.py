"""Driving nbgrader from Python: the course configuration, one converter run with its log, the gradebook.

Every verb (:mod:`autograder.pipeline.generate`, :mod:`autograder.pipeline.validate`,
:mod:`autograder.grading.autograde`, :mod:`autograder.pipeline.feedback`) runs nbgrader's
classes through :func:`run_nbgrader` with :func:`load_config`: the course
configuration ``autograder/nbgrader_config.py``, loaded explicitly so that the
current directory does not matter, pointed at the folders of a
:class:`~autograder.paths.CoursePaths`.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import re
import shutil
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from ..paths import CONFIG_FILE, RELEASE_DIRNAME, CoursePaths

COURSE_ID = "hpml"
# fast mode; hidden tests hand their results to the grader (hpml_lab_utils.recorded)
ENV_FOR_KERNELS = {"HPML_FAST": "1", "HPML_RECORD_RESULTS": "1"}


def prepare_nbgrader() -> None:
    """Before nbgrader runs in this process: its ``alembic`` executable on PATH (``nbgrader db upgrade`` starts it),
    and the gradebook schema's version read here rather than by that executable.

    nbgrader's ``Gradebook`` runs ``alembic heads`` each time it creates a gradebook: a Python that imports
    SQLAlchemy and Alembic, 4 CPU seconds for one revision id, in every new grading folder.
    """
    bindir = str(Path(sys.executable).parent)
    if shutil.which("alembic") is None and bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    import nbgrader.api

    nbgrader.api.get_alembic_version = gradebook_schema_head


@functools.cache
def gradebook_schema_head() -> str:
    """The newest revision of nbgrader's gradebook schema (what ``alembic heads`` prints for nbgrader's scripts)."""
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = AlembicConfig()
    config.set_main_option("script_location", ALEMBIC_DIR)
    return ScriptDirectory.from_config(config).get_current_head()


def load_config(paths: CoursePaths | None = None) -> Config:
    """Load ``autograder/nbgrader_config.py`` and point it at the folders of ``paths``."""
    paths = paths or CoursePaths.from_env()
    prepare_nbgrader()
    cfg = PyFileConfigLoader(CONFIG_FILE.name, path=str(CONFIG_FILE.parent)).load_config()
    cd = cfg.CourseDirectory
    cd.course_id = COURSE_ID
    cd.root = str(paths.root)
    cd.source_directory = "solutions"
    cd.release_directory = RELEASE_DIRNAME if paths.release == paths.root / RELEASE_DIRNAME else str(paths.release)
    cd.submitted_directory = str(paths.submitted)
    cd.autograded_directory = str(paths.autograded)
    cd.feedback_directory = str(paths.feedback)
    cd.db_url = paths.db_url
    return cfg


def kernel_env() -> contextlib.AbstractContextManager[None]:
    """Environment the grading kernels inherit: ``HPML_FAST=1`` (small problem sizes), results recorded."""
    return environment(ENV_FOR_KERNELS)


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` set in this process's environment (and so every child's) while the block runs, then restored."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class RunLog:
    success: bool
    log: str
    error: str = ""

    def last_error(self) -> str:
        """The most telling error line of the run, for a one-line message."""
        generic = ("Please see the", "There was an error processing assignment", "Traceback (most recent call last)")
        lines = [l.strip() for l in (self.log + "\n" + self.error).splitlines() if l.strip()]
        # nbgrader logs the root cause first ("Kernel died while waiting for execute reply."), then generic lines
        errors = [
            l.removeprefix("[ERROR]").strip()
            for l in lines
            if l.startswith("[ERROR]") and not any(g in l for g in generic)
        ]
        exceptions = [
            re.sub(r"^(\w+\.)+", "", l)
            for l in lines
            if re.match(r"^[\w.]*(Error|Exception|Interrupt)\b[^:]*:", l) and "NbGraderException" not in l
        ]
        pick = errors[0] if errors else exceptions[-1] if exceptions else (lines[-1] if lines else "unknown error")
        return pick[:300]


def run_nbgrader(app_class, coursedir_attrs: dict, cfg: Config, **app_attrs) -> RunLog:
    """Start one nbgrader converter with its log captured (nothing reaches the console)."""
    from nbgrader.coursedir import CourseDirectory

    logger = logging.getLogger("autograder.nbgrader")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SQLAlchemy SAWarnings on new students, nbformat id warnings
            coursedir = CourseDirectory(config=cfg, log=logger)
            for k, v in coursedir_attrs.items():
                setattr(coursedir, k, v)
            app = app_class(coursedir=coursedir, config=cfg, log=logger)
            for k, v in app_attrs.items():
                setattr(app, k, v)
            try:
                app.start()
            except BaseException as exc:  # nbgrader raises NbGraderException after logging; keep Ctrl-C working
                if isinstance(exc, KeyboardInterrupt):
                    raise
                return RunLog(False, buf.getvalue(), traceback.format_exc())
        return RunLog(True, buf.getvalue())
    finally:
        logger.removeHandler(handler)


def open_gradebook(paths: CoursePaths):
    """The course gradebook (nbgrader's ``Gradebook``, a context manager), its folder created if needed."""
    from nbgrader.api import Gradebook

    prepare_nbgrader()
    paths.work.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Gradebook(paths.db_url, COURSE_ID)
