"""Similar answers in a class: every pair of students' answer cells compared, for a human to read.

``python -m autograder similarity LAB [SUBMISSIONS]``. Each student's answer cells (the cells the release
leaves for them to fill) are joined into one document; the release's stub code is boilerplate that never
counts. Documents are compared with copydetect, a maintained implementation of winnowing (Schleimer,
Wilkerson and Aiken, 2003: the algorithm of Stanford's MOSS): the code is tokenized with Pygments and every
name becomes one letter (V, F, O), strings become S, comments and whitespace go, and a subset of its k-gram
hashes (the fingerprints) is kept. A pair's similarity, for each student, is the share of that student's
fingerprinted code found in the other's: renamed variables, rewritten comments and whitespace, and functions
or statements moved around change neither. ``similarity_report`` (similarity_report.py) writes the ranked
pairs, the matching regions side by side and the clusters.

A high similarity is evidence for a human to read, never an accusation: short functions written from the
same text can coincide, and shared code may be allowed.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from copydetect import CodeFingerprint, compare_files

from ..grading.submissions import InvalidNotebook, discover, read_notebook

NOISE_CHARS = 25  # k: matches shorter than this many characters of filtered code are noise (copydetect's default)
GUARANTEE_CHARS = 30  # every match this long is found (the winnowing window is GUARANTEE - NOISE + 1)
MIN_OVERLAP_CHARS = 100  # a pair sharing less filtered code than this is not reported, whatever the shares
DEFAULT_THRESHOLD = 0.75  # share of one student's fingerprinted code found in the other's


@dataclass(frozen=True)
class Document:
    """One student's answer cells as one text, with its fingerprints."""

    student_id: str
    code: str
    fingerprint: CodeFingerprint = field(repr=False)


@dataclass(frozen=True)
class Pair:
    """Two students whose answers share code: ``share_a`` of a's fingerprinted code is in b's, and so on."""

    a: str
    b: str
    share_a: float
    share_b: float
    overlap_chars: int
    slices_a: np.ndarray = field(repr=False)
    slices_b: np.ndarray = field(repr=False)

    @property
    def similarity(self) -> float:
        """The larger share: a student who copied a classmate's answers and added code of their own still shows."""
        return max(self.share_a, self.share_b)


def answer_cells(nb) -> dict[str, str]:
    """``{grade_id: source}`` of a notebook's answer cells (nbgrader's solution cells), code cells only."""
    found = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution") and meta.get("grade_id"):
            found[meta["grade_id"]] = cell.source
    return found


def joined(cells: dict[str, str], order: list[str]) -> str:
    """The answer cells in the release's order, each after a comment naming it (comments never count)."""
    return "".join(f"# answer cell {name}\n{cells.get(name, '')}\n\n" for name in order)


def fingerprint(name: str, code: str, boilerplate: np.ndarray | None = None, window: int | None = None):
    """copydetect's fingerprint of Python ``code`` (``name`` only labels it)."""
    window = GUARANTEE_CHARS - NOISE_CHARS + 1 if window is None else window
    return CodeFingerprint(
        f"{name}.py", NOISE_CHARS, window, boilerplate=boilerplate, fp=io.StringIO(code), language="python"
    )


def boilerplate_hashes(release_code: str) -> np.ndarray:
    """Every k-gram hash of the release's stubs (window 1: all of them), never counted as shared."""
    return np.array(sorted(fingerprint("release", release_code, window=1).hashes), dtype=np.int64)


def documents(
    submissions: Path, release_notebooks: dict[str, Path]
) -> tuple[list[Document], dict[str, str], list[str]]:
    """One document per student folder under ``submissions`` (``<student>/<notebook>.ipynb``).

    ``release_notebooks``: ``{notebook name: release path}``. Returns the documents, ``{student: why not
    compared}`` for submissions that cannot be read, and the answer cells' labels in order.
    """
    releases = {name: read_notebook(path) for name, path in release_notebooks.items()}
    order = [(name, grade_id) for name, nb in releases.items() for grade_id in answer_cells(nb)]
    labels = [f"{name}:{grade_id}" if len(releases) > 1 else grade_id for name, grade_id in order]

    def code_of(cells_by_notebook: dict[str, dict[str, str]]) -> str:
        flat = {label: cells_by_notebook.get(name, {}).get(gid, "") for label, (name, gid) in zip(labels, order)}
        return joined(flat, labels)

    boilerplate = boilerplate_hashes(code_of({name: answer_cells(nb) for name, nb in releases.items()}))
    docs, problems = [], {}
    for sub in discover(Path(submissions), list(release_notebooks)):
        if sub.problem:
            problems[sub.student_id] = sub.problem
            continue
        try:
            cells = {name: answer_cells(read_notebook(path)) for name, path in sub.notebooks.items()}
        except InvalidNotebook as exc:
            problems[sub.student_id] = str(exc)
            continue
        code = code_of(cells)
        docs.append(Document(sub.student_id, code, fingerprint(sub.student_id, code, boilerplate)))
    return docs, problems, labels


def compare(docs: list[Document], min_overlap_chars: int = MIN_OVERLAP_CHARS) -> list[Pair]:
    """Every pair that shares at least ``min_overlap_chars`` of filtered code, most similar first."""
    pairs = []
    for i, first in enumerate(docs):
        for second in docs[i + 1 :]:
            overlap, (share_a, share_b), (slices_a, slices_b) = compare_files(first.fingerprint, second.fingerprint)
            if overlap >= min_overlap_chars:
                pairs.append(
                    Pair(first.student_id, second.student_id, float(share_a), float(share_b), int(overlap),
                         slices_a, slices_b)
                )  # fmt: skip
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))


def clusters(pairs: list[Pair], threshold: float) -> list[list[str]]:
    """Groups of more than two students joined by pairs at or above ``threshold`` (connected components)."""
    neighbours: dict[str, set[str]] = {}
    for p in pairs:
        if p.similarity >= threshold:
            neighbours.setdefault(p.a, set()).add(p.b)
            neighbours.setdefault(p.b, set()).add(p.a)
    seen, groups = set(), []
    for start in sorted(neighbours):
        if start in seen:
            continue
        group, todo = set(), [start]
        while todo:
            s = todo.pop()
            if s not in group:
                group.add(s)
                todo.extend(neighbours[s] - group)
        seen |= group
        if len(group) > 2:
            groups.append(sorted(group))
    return sorted(groups, key=lambda g: (-len(g), g))
