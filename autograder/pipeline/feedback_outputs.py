"""What the feedback shows of outputs made after the first hidden test ran: only text the grader can vouch for.

Once a hidden test has run in a student's kernel, code the student wrote can
hold that test's source (``In``, the history, a ``pre_run_cell`` hook, the
objects it defined) and print it in any form, encoded too, where redacting
quotes (:class:`~autograder.pipeline.preprocessors.RedactTracebacks`) cannot
see it. So :class:`WithholdOutputsAfterHiddenTests` (feedback only; the
autograded notebook the instructor reads keeps everything) keeps, from the
first cell with hidden tests on:

- of a cell that is not a test cell: no output, one note instead (the student's
  own notebook has them);
- of a test cell: its errors only, each as one line. The exception's name is
  kept when it is a built-in exception's or one of the grader's, else shown as
  ``Error``; the message is kept when the grader wrote it itself (noted in the
  cell's metadata by :func:`~autograder.isolation.tamper.add_grader_error`:
  recorded-result mismatches, a kernel that stopped reporting, cells not run),
  when it is one of the test cell's own messages (a string in its source, or
  an f-string of it whose fields hold numbers or words of the cell), or when it
  is the tamper guard's finding in the guard's own words (``numpy.allclose was
  replaced``: names only; a forged one carries no more than names, and the
  student's status is ``tampered``, for a human look, anyway), else it is
  withheld. What a kernel reports is never trusted to be the test's.

Outputs of the cells before the first hidden test stay as they are: no hidden
code had run when they were made.
"""

from __future__ import annotations

import ast
import builtins
import re

from nbformat import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..isolation.tamper import GRADER_ERRORS_KEY
from ..labs import is_test_cell
from .preprocessors import normalise_space, one_line_error, strip_ansi

WITHHELD_NOTE = (
    "[outputs of cells that ran after the first hidden test are not repeated in the feedback: your own notebook "
    "has them]\n"
)
WITHHELD_MESSAGE = "(message not shown: it was made by code that ran during the test)"
GRADER_NAMES = frozenset(["ResultMismatch", "TamperingDetected", "NotRun", "CellTimeoutError", "DeadKernelError"])
KNOWN_NAMES = GRADER_NAMES | {
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
}
_FIELD = r"[-+0-9.,:()\[\]x% eE]{0,40}"  # what a number, a shape or a small tuple of numbers prints as
_NAME = r"[A-Za-z_][\w.]{0,60}(?:\['[\w.]{1,60}'\])?"
_FINDING = (  # the tamper guard's findings (isolation/kernel_guard.py)
    r"(?:(?:IPython (?:shell|compiler|transformer manager) method )?"
    rf"{_NAME} (?:was replaced|was deleted|was added|was modified \(code or defaults\))"
    rf"|sys\.modules\['{_NAME}'\] is not the installed {_NAME}"
    rf"|builtins\.{_NAME} was shadowed by a global of the notebook|an IPython {_NAME} callback was registered"
    r"|sys\.settrace was used \(a trace function is active\)|sys\.setprofile was used \(a profile function is active\)"
    r"|IPython transformer lists were replaced|the IPython shell's input machinery was replaced"
    r"|IPython event callbacks were replaced|__builtins__ of the notebook was replaced"
    r"|the tamper guard was called from outside a test cell)"
)
GUARD_FINDINGS = re.compile(rf"{_FINDING}(?:; {_FINDING}){{0,20}}")


def cell_messages(source: str) -> re.Pattern | None:
    """A pattern matching the messages a test cell's own code can make: its strings and f-strings.

    An f-string's fields match numbers, shapes, and words that appear in the cell (its strings and names).
    None when the source does not parse or holds no string.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    strings, words, fstrings = [], set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            fstrings.append(node)
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            words.add(node.name)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
    words.update(s for s in strings if len(s) <= 200)
    field = (
        "(?:" + "|".join([_FIELD, *(re.escape(normalise_space(w)) for w in sorted(words, key=len, reverse=True))]) + ")"
    )
    alternatives = [re.escape(normalise_space(s)) for s in strings if s.strip()]
    for node in fstrings:
        parts = [
            re.escape(normalise_space(v.value)) if isinstance(v, ast.Constant) and isinstance(v.value, str) else field
            for v in node.values
        ]
        alternatives.append(r"\s*".join(p for p in parts if p))
    if not alternatives:
        return None
    return re.compile("(?:" + "|".join(alternatives) + ")")


def _shown_error(output: NotebookNode, vouched: set[str], messages: re.Pattern | None) -> NotebookNode:
    ename = str(output.get("ename", "Error"))
    evalue = strip_ansi(str(output.get("evalue", "")))
    line = one_line_error(ename, evalue)
    if line in vouched:
        text = line
    else:
        name = ename if ename in KNOWN_NAMES else "Error"
        message = normalise_space(evalue)
        own = message and (
            (messages is not None and messages.fullmatch(message) is not None)
            or (ename == "TamperingDetected" and GUARD_FINDINGS.fullmatch(message) is not None)
        )
        text = one_line_error(name, evalue if own else (WITHHELD_MESSAGE if message else ""))
    ename_shown, _, evalue_shown = text.partition(": ")
    return from_dict({"output_type": "error", "ename": ename_shown, "evalue": evalue_shown, "traceback": [text]})


class WithholdOutputsAfterHiddenTests(NbGraderPreprocessor):
    """Feedback, before ``ClearHiddenTests``: from the first cell with hidden tests on, only what the grader vouches
    for (see the module's docstring)."""

    begin_test_delimeter = Unicode("BEGIN HIDDEN TESTS").tag(config=True)

    def preprocess(self, nb, resources):
        started = False
        for cell in nb.cells:
            if cell.get("cell_type") != "code":
                continue
            started = started or self.begin_test_delimeter in cell.get("source", "")
            if not started or not cell.get("outputs"):
                continue
            if is_test_cell(cell):
                vouched = set(cell.get("metadata", {}).get(GRADER_ERRORS_KEY, []))
                messages = cell_messages(cell.source)
                cell.outputs = [
                    _shown_error(o, vouched, messages) for o in cell.outputs if o.get("output_type") == "error"
                ]
            else:
                cell.outputs = [from_dict({"output_type": "stream", "name": "stdout", "text": WITHHELD_NOTE})]
        return nb, resources
