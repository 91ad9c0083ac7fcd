"""The quiz bank: the course's self-check questions, each with its answer recomputed by a key.

A question is a code cell of ``course/weekNN_*.ipynb`` that starts with
``# selfcheck: <id>`` and calls ``choice(question, options, digest, ...)`` or
``number(question, digest, digits=3, unit=..., rtol=..., ...)`` (:mod:`hpml_lab_utils.selfcheck`).
The keys live in ``autograder/classroom/quiz_keys/weekNN.py``, each a dict ``KEYS``:
question id -> a function that recomputes the answer from the question's data.
They are instructor material: ``autograder/`` never reaches students.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from ..paths import PACKAGE_DIR

COURSE_DIR = PACKAGE_DIR.parent / "course"
KEYS_DIR = Path(__file__).resolve().parent / "quiz_keys"
MARKER = re.compile(r"^#\s*selfcheck:\s*([A-Za-z0-9_]+)\s*$", re.MULTILINE)
WEEK = re.compile(r"^week(\d\d)_")


@dataclass(frozen=True)
class Question:
    id: str
    week: int
    notebook: str
    cell: int
    kind: str  # "choice" or "number"
    text: str
    digest: str
    digits: int = 3
    options: tuple[str, ...] = ()
    unit: str = ""
    rtol: float | None = None  # numbers compared within this relative tolerance instead of at ``digits``


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _literal(node: ast.AST | None) -> Any:
    return None if node is None else ast.literal_eval(node)


def _question(path: Path, index: int, qid: str, call: ast.Call) -> Question:
    kwargs = {k.arg: k.value for k in call.keywords}
    args = list(call.args) + [None] * 3
    kind = _call_name(call)
    text = _literal(kwargs.get("question", args[0]))
    week = int(WEEK.match(path.name).group(1)) if WEEK.match(path.name) else 0
    unit = _literal(kwargs.get("unit")) or ""
    if kind == "choice":
        options = tuple(_literal(kwargs.get("options", args[1])))
        stored = _literal(kwargs.get("expected_digest", args[2]))
        return Question(qid, week, path.name, index, kind, text, stored, 3, options, unit)
    stored = _literal(kwargs.get("expected_digest", args[1]))
    digits = _literal(kwargs.get("digits", args[2])) or 3
    return Question(qid, week, path.name, index, kind, text, stored, digits, (), unit, _literal(kwargs.get("rtol")))


def find_questions(course_dir: Path = COURSE_DIR) -> list[Question]:
    """Every ``# selfcheck: <id>`` cell of the course's notebooks, in notebook and cell order."""
    found = []
    for path in sorted(Path(course_dir).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            ids = MARKER.findall(cell.source) if cell.cell_type == "code" else []
            if not ids:
                continue
            calls = [
                node
                for node in ast.walk(ast.parse(cell.source))
                if isinstance(node, ast.Call) and _call_name(node) in ("choice", "number")
            ]
            if len(ids) != 1 or len(calls) != 1:
                raise ValueError(f"{path.name} cell {index}: one '# selfcheck: <id>' and one choice()/number() call")
            found.append(_question(path, index, ids[0], calls[0]))
    return found


def answer_key(keys_dir: Path = KEYS_DIR) -> dict[str, Callable[[], Any]]:
    """Question id -> the function that recomputes its answer, from every ``weekNN.py`` of ``keys_dir``."""
    key: dict[str, Callable[[], Any]] = {}
    for path in sorted(Path(keys_dir).glob("week*.py")):
        spec = importlib.util.spec_from_file_location(f"hpml_quiz_keys_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        clash = set(module.KEYS) & set(key)
        if clash:
            raise ValueError(f"{path.name}: question ids already keyed in another week: {sorted(clash)}")
        key.update(module.KEYS)
    return key
