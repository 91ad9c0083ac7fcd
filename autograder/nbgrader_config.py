"""nbgrader configuration of the HPML course (a traitlets config file).

The autograder CLI (``python -m autograder``) loads this file explicitly, so it
works from any current directory; plain ``nbgrader`` commands also pick it up
when run from ``autograder/``.

- Course root: the repository (``$HPML_COURSE_ROOT`` overrides);
  ``solutions/`` is the source directory, ``labs/`` the release directory.
- Submissions, autograded copies, feedback and the sqlite gradebook: the
  git-ignored grading folder, ``autograder/work/`` (``$HPML_GRADING_DIR``
  overrides). See ``autograder/paths.py``.
- Execution: a per-cell timeout of ``Limits.cell_timeout_s`` (``autograder/limits.py``;
  a grading worker sets its lab's); a cell that runs over is interrupted and scores zero. ``Execute.timeout`` is
  the setting nbgrader honours (it ignores ``ExecutePreprocessor.timeout``).
- Deleted test cells are restored from the source before grading; a cell whose
  grade id is not in the gradebook is made a plain cell first, so the original
  is restored (``edited_cells.DropUnknownGradeIds``).
- Autograde runs the kernel through ``sandbox.SandboxedExecute`` (scratch
  folder, limits, bubblewrap when it works; configured by the ``HPML_SANDBOX_*``
  variables the grading worker sets), between ``tamper.InsertTamperGuards`` and
  ``tamper.AuditTamperGuards`` (replaced comparison functions score zero).
- Hidden tests that record results (``hpml_lab_utils.recorded``) are judged
  outside the kernel: ``verdicts.JudgeRecordedResults`` compares each test cell's
  records with the reference solution's (``grading/reference_results.py``).
- Points follow test results: a test cell scores by its asserts, whatever it
  writes to stderr (``scoring.SaveAutoGradesByTests``; nbgrader alone scores
  any stderr output zero). The stderr text stays in the feedback.
- Release: no outputs, no execution counts, no volatile metadata.
- Feedback: hidden test code is cleared from the sources, and error outputs of
  test cells are cut to ``ExceptionName: message`` so that no traceback quotes
  a hidden test. Pages of student notebooks are sanitized (no student script runs).
"""

import os
import sys

try:
    from autograder.paths import CoursePaths
except ImportError:  # run by plain `nbgrader` from a checkout that is not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from autograder.paths import CoursePaths

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ClearSolutions,
    ComputeChecksums,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    IncludeHeaderFooter,
    InstantiateTests,
    LimitOutput,
    LockCells,
    OverwriteCells,
    OverwriteKernelspec,
    SaveCells,
)

from autograder.isolation.sandbox import SandboxedExecute
from autograder.isolation.tamper import AuditTamperGuards, InsertTamperGuards
from autograder.lab_settings import limits_for
from autograder.pipeline.edited_cells import DropUnknownGradeIds
from autograder.pipeline.feedback_outputs import WithholdOutputsAfterHiddenTests
from autograder.pipeline.preprocessors import CheckCellMetadataOnce, CleanReleaseMetadata, RedactTracebacks
from autograder.pipeline.scoring import SaveAutoGradesByTests
from autograder.pipeline.verdicts import JudgeRecordedResults

c = get_config()  # noqa: F821 (injected by traitlets' config loader)

_paths = CoursePaths.from_env()
os.makedirs(_paths.work, exist_ok=True)  # sqlite cannot create the gradebook in a missing folder

# --- where things are -------------------------------------------------------
c.CourseDirectory.root = str(_paths.root)
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "labs"
c.CourseDirectory.submitted_directory = str(_paths.submitted)
c.CourseDirectory.autograded_directory = str(_paths.autograded)
c.CourseDirectory.feedback_directory = str(_paths.feedback)
c.CourseDirectory.db_url = _paths.db_url
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    "*.nbi",
    "*.nbc",
    "torch_extensions",  # lab11's C++ builds (hpml_lab_utils.cpp): never released, submitted or collected
    # a lab's settings and its mutants (wrong answers made of the reference's lines): instructors only
    "lab.toml",
    "mutants.toml",
]

# --- running student notebooks ----------------------------------------------
c.Execute.timeout = limits_for(lab="").cell_timeout_s  # the defaults and $HPML_* overrides
c.Execute.interrupt_on_timeout = True
c.Execute.startup_timeout = 120  # a cold kernel that imports torch can take a while on 2 cores
# quiet kernels: ipykernel's "running over TCP without encryption" notice is not for graders;
# no IPython history (an SQLite file and a thread per kernel that grading never reads)
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR", "--HistoryManager.enabled=False"]
# once the last cell has run, the kernel is killed rather than asked to exit: its interpreter
# shutdown (numba, matplotlib...) costs about 0.4 s of CPU a submission, and the sandbox kills
# whatever is left anyway
c.Execute.shutdown_kernel = "immediate"
c.OverwriteCells.add_missing_cells = True

# --- autograde: nbgrader's pipeline, plus tamper guards around a sandboxed kernel --
c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    DropUnknownGradeIds,  # an invented or renamed grade id must not survive as a graded cell
    OverwriteCells,
    CheckCellMetadataOnce,
]
c.Autograde.autograde_preprocessors = [
    InsertTamperGuards,
    SandboxedExecute,  # nbgrader's Execute with the kernel in the scratch folder, inside the limits
    AuditTamperGuards,
    JudgeRecordedResults,  # recorded results against the reference's, outside the kernel
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGradesByTests,  # nbgrader's SaveAutoGrades, except that stderr output does not cost points
    AssignLatePenalties,
    CheckCellMetadataOnce,
]

# --- release: nbgrader's default pipeline, plus volatile-metadata cleaning ----
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    ClearSolutions,
    ClearOutput,
    CleanReleaseMetadata,
    CheckCellMetadataOnce,
    ComputeChecksums,
    SaveCells,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    CheckCellMetadataOnce,
]

# --- what a browser shows of a submission: no student script runs -------------
# Student outputs and Markdown are untrusted. nbconvert's sanitizer (nbviewer's) keeps their text and
# formatting and drops scripts, event handlers, JavaScript and widget outputs from the feedback pages
# (whose template, pipeline/templates/hpml_feedback, sanitizes the Markdown that nbgrader's leaves as is).
c.HTMLExporter.sanitize_html = True

# --- feedback: no hidden test code, no traceback that quotes it ---------------
# RedactTracebacks and WithholdOutputsAfterHiddenTests read the hidden code, so they run before ClearHiddenTests
# removes it. From the first hidden test on, the feedback shows only what the grader vouches for: student code
# that ran after a hidden test can hold its source and print it encoded (pipeline/feedback_outputs.py).
c.GenerateFeedback.preprocessors = [
    GetGrades,
    RedactTracebacks,
    WithholdOutputsAfterHiddenTests,
    ClearHiddenTests,
    ClearMarkScheme,
    CSSHTMLHeaderPreprocessor,
]
