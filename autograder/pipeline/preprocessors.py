"""The nbconvert preprocessors the course's nbgrader configuration adds (see ``nbgrader_config.py``).

- :class:`CleanReleaseMetadata` (release): keeps only the metadata a student's
  notebook needs, so the release carries nothing volatile (execution times,
  widget state, collapsed/scrolled flags, the Python patch version) and a fresh
  ``generate`` reproduces ``labs/`` byte for byte.
- :class:`RedactTracebacks` (feedback): reduces every error output of a test
  cell to one line ``ExceptionName: message``. A traceback of a failing hidden
  test quotes the hidden test's code; nbgrader's own ``ClearHiddenTests`` only
  removes the code from the cell's *source*, not from its outputs. It also
  redacts, in every output of every cell, any line that repeats a line of
  hidden test code (whitespace-normalised, also in its ``repr``/JSON-escaped
  form): student code can capture test cell source (an IPython
  ``pre_run_cell`` hook, ``In``, the history) and print it. Any trace of the
  tamper guard (``autograder/isolation/tamper.py``) is redacted the same way, and a
  traceback of any cell that quotes hidden or guard code is cut to one line.
  Only verbatim quotes are caught: an encoded copy (base64, reversed) is not;
  :mod:`autograder.pipeline.feedback_outputs` withholds from the feedback what
  was made after the first hidden test ran, which is where such a copy can be.
- :class:`CheckCellMetadataOnce` (release, autograde): nbgrader's
  ``CheckCellMetadata`` with the same checks, the metadata schema checked once
  per run instead of once per cell (it was a quarter of the grading worker's
  own CPU time per submission).

nbconvert runs a preprocessor only when ``enabled`` is true; nbgrader's base
class defaults it to true.
"""

from __future__ import annotations

import contextlib
import re

import jsonschema
from nbgrader.nbgraderformat import common as nbgrader_format
from nbgrader.preprocessors import CheckCellMetadata, NbGraderPreprocessor
from traitlets import Integer, List, Unicode

from ..isolation.tamper import GUARD_LINE_MARK, GUARD_MIME, SETUP_FUNCTION

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

REDACTED = "[line hidden: it quotes hidden test code]"


def strip_ansi(text: str) -> str:
    """Remove ANSI colour codes (IPython colours its tracebacks)."""
    return _ANSI.sub("", text)


def one_line_error(ename: str, evalue: str) -> str:
    """``"ExceptionName: message"`` (or just the name when the message is empty)."""
    evalue = strip_ansi(evalue or "").strip()
    return f"{ename}: {evalue}" if evalue else str(ename)


MIN_QUOTE_LENGTH = 8  # hidden lines shorter than this (``else:``, ``pass``) identify nothing

# Always redacted: traces of the tamper guard (see ``autograder/isolation/tamper.py``).
GUARD_NEEDLES = [GUARD_LINE_MARK, SETUP_FUNCTION, GUARD_MIME]


def normalise_space(text: str) -> str:
    """Collapse runs of whitespace to one space (a quote may be re-indented or re-wrapped)."""
    return " ".join(text.split())


def hidden_test_lines(
    source: str, begin: str = "BEGIN HIDDEN TESTS", end: str = "END HIDDEN TESTS", min_length: int = MIN_QUOTE_LENGTH
) -> list[str]:
    """The stripped, non-trivial lines between the hidden-test markers of one cell's source."""
    lines, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            text = line.strip()
            # lines too short or generic to identify hidden code are not worth hunting for
            if len(normalise_space(text)) >= min_length and not text.startswith("#"):
                lines.append(text)
    return lines


def quote_needles(lines: list[str]) -> list[str]:
    """What to search outputs for: each line, plus its ``repr`` and JSON escapes (a printed list of strings)."""
    import json

    needles = []
    for line in lines:
        for form in (line, repr(line)[1:-1], json.dumps(line)[1:-1]):
            if form not in needles:
                needles.append(form)
    return needles


class CleanReleaseMetadata(NbGraderPreprocessor):
    """Drop volatile notebook and cell metadata from the student release."""

    keep_cell_metadata = List(
        ["nbgrader", "deletable", "editable", "tags", "slideshow"],
        help="Cell metadata keys kept in the release; every other key is dropped.",
    ).tag(config=True)
    keep_notebook_metadata = List(
        ["kernelspec", "language_info", "nbgrader", "hpml"],
        help="Notebook metadata keys kept in the release.",
    ).tag(config=True)
    drop_language_info = List(
        ["version"],
        help="Keys dropped from language_info (the Python patch version differs between machines).",
    ).tag(config=True)

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        nb.metadata = {k: v for k, v in nb.metadata.items() if k in self.keep_notebook_metadata}
        info = nb.metadata.get("language_info")
        if isinstance(info, dict):
            for key in self.drop_language_info:
                info.pop(key, None)
        ids = (resources or {}).get("nbgrader", {})
        if ids.get("assignment") and ids.get("notebook"):  # generated files name their source
            nb.metadata["hpml"] = {
                "generated_from": f"solutions/{ids['assignment']}/{ids['notebook']}.ipynb",
                "generated_by": "python -m autograder generate (make release): edit the source, not this file",
            }
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in self.keep_cell_metadata}
        return cell, resources


class RedactTracebacks(NbGraderPreprocessor):
    """Reduce error outputs of test cells to ``ExceptionName: message``; redact quotes of hidden tests.

    Must run *before* ``ClearHiddenTests`` (it reads the hidden test code from the
    sources to know what to look for).
    """

    begin_test_delimeter = Unicode("BEGIN HIDDEN TESTS").tag(config=True)
    end_test_delimeter = Unicode("END HIDDEN TESTS").tag(config=True)
    min_quote_length = Integer(MIN_QUOTE_LENGTH, help="Hidden lines shorter than this are not hunted for.").tag(
        config=True
    )
    extra_needles = List(GUARD_NEEDLES, help="Further strings whose lines are always redacted.").tag(config=True)

    def preprocess(self, nb, resources):
        hidden = []
        for cell in nb.cells:
            if cell.cell_type == "code":
                hidden += hidden_test_lines(
                    cell.source, self.begin_test_delimeter, self.end_test_delimeter, self.min_quote_length
                )
        extra = list(self.extra_needles) + ([self.begin_test_delimeter, self.end_test_delimeter] if hidden else [])
        self._hidden = quote_needles([normalise_space(h) for h in hidden]) + [normalise_space(n) for n in extra]
        return super().preprocess(nb, resources)

    def _quotes_hidden(self, text: str) -> bool:
        text = normalise_space(strip_ansi(text))
        return any(line in text for line in self._hidden)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        nbg = cell.metadata.get("nbgrader", {})
        test_cell = bool(nbg.get("grade") or nbg.get("locked")) and not nbg.get("solution")
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                if self._quotes_hidden(str(output.get("ename", ""))):
                    output["ename"] = "Error"
                quoted = any(self._quotes_hidden(line) for line in output.get("traceback", []))
                evalue = output.get("evalue", "")
                if self._quotes_hidden(evalue):
                    output["evalue"] = evalue = REDACTED
                if test_cell or quoted:
                    output["evalue"] = strip_ansi(evalue)
                    output["traceback"] = [one_line_error(output.get("ename", "Error"), output["evalue"])]
            elif output.get("output_type") == "stream":
                text = output.get("text", "")
                if self._quotes_hidden(text):
                    output["text"] = "".join(
                        (REDACTED + "\n") if self._quotes_hidden(line) else line
                        for line in text.splitlines(keepends=True)
                    )
            else:
                data = output.get("data", {})
                data.pop(GUARD_MIME, None)
                plain = data.get("text/plain")
                if isinstance(plain, str) and self._quotes_hidden(plain):
                    data["text/plain"] = REDACTED
                for mime in list(data):
                    if mime != "text/plain" and isinstance(data[mime], str) and self._quotes_hidden(data[mime]):
                        del data[mime]
        return cell, resources


class _JsonschemaCheckingSchemasOnce:
    """Stands in for the ``jsonschema`` module inside nbgrader's metadata validator.

    ``jsonschema.validate(instance, schema)`` checks ``schema`` itself against
    its meta-schema on every call; nbgrader calls it once per cell. This
    checks each schema once, then validates exactly as ``jsonschema.validate``
    does (the best-matching error is raised).
    """

    def __init__(self) -> None:
        self._validators: dict[int, tuple[dict, object]] = {}  # id(schema) -> (schema kept alive, validator)

    def __getattr__(self, name: str):
        return getattr(jsonschema, name)

    def validate(self, instance, schema, *args, **kwargs) -> None:
        if args or kwargs:
            return jsonschema.validate(instance, schema, *args, **kwargs)
        entry = self._validators.get(id(schema))
        if entry is None or entry[0] is not schema:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            entry = self._validators[id(schema)] = (schema, cls(schema))
        error = jsonschema.exceptions.best_match(entry[1].iter_errors(instance))
        if error is not None:
            raise error


_SCHEMAS_CHECKED_ONCE = _JsonschemaCheckingSchemasOnce()


@contextlib.contextmanager
def _schemas_checked_once():
    saved = nbgrader_format.jsonschema
    nbgrader_format.jsonschema = _SCHEMAS_CHECKED_ONCE
    try:
        yield
    finally:
        nbgrader_format.jsonschema = saved


class CheckCellMetadataOnce(CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` (schema versions, types, unique grade ids), the schema checked once."""

    def preprocess(self, nb, resources):
        with _schemas_checked_once():
            return super().preprocess(nb, resources)
