"""Finding students' notebooks in a folder or a .zip, and telling a notebook from garbage.

A class's submissions are laid out as ``<student_id>/<anything>.ipynb`` (in a
folder, or in a zip of such folders, possibly wrapped in one more folder).
For each student we pick the notebook of the lab:

1. a file named exactly like the lab's notebook (``lab01_benchmarking.ipynb``);
2. an obvious variant of that name: other case, ``lab01_benchmarking (1).ipynb``,
   ``lab01_benchmarking-Copy1.ipynb``, ``Lab01 Benchmarking.ipynb``,
   ``lab01_benchmarking_jdoe.ipynb``;
3. otherwise, when the student handed in exactly one notebook, that one.

Shallower files win over files in subfolders; checkpoints (``.ipynb_checkpoints``),
macOS debris (``__MACOSX``, ``._*``) and hidden files are ignored.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import nbformat

STUDENT_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._@+-]*$")

_IGNORED_DIRS = {".ipynb_checkpoints", "__MACOSX", "__pycache__"}
_COPY_SUFFIX = re.compile(r"(\s*\(\d+\)|[\s_-]*copy\d*|-checkpoint)$", re.IGNORECASE)


class InvalidNotebook(ValueError):
    """The file is not a notebook nbgrader can grade (the message says why, for the student)."""


@dataclass(frozen=True)
class Submission:
    """One student's hand-in: the chosen notebook per lab notebook name, or why there is none."""

    student_id: str
    notebooks: dict[str, Path]  # lab notebook name (no .ipynb) -> the student's file
    folder: Path
    problem: str = ""  # non-empty: this submission cannot be graded (no notebook, bad student id)
    note: str = ""  # informational (e.g. which variant was accepted)


def normalize_stem(stem: str) -> str:
    """``"Lab01 Benchmarking (1)"`` -> ``"lab01_benchmarking"``: case, separators and copy suffixes removed."""
    s = stem.strip().lower()
    while True:
        t = _COPY_SUFFIX.sub("", s).strip()
        if t == s:
            break
        s = t
    return re.sub(r"[\s\-.]+", "_", s)


def is_visible(path: Path, root: Path) -> bool:
    """False for checkpoints, macOS debris, caches and hidden files: what nobody handed in on purpose."""
    parts = path.relative_to(root).parts
    return not any(p in _IGNORED_DIRS or p.startswith(".") for p in parts)


def _notebook_files(folder: Path) -> list[Path]:
    found = [p for p in folder.rglob("*.ipynb") if p.is_file() and is_visible(p, folder)]
    return sorted(found, key=lambda p: (len(p.relative_to(folder).parts), str(p.relative_to(folder)).lower()))


def choose_notebook(candidates: list[Path], folder: Path, expected: str) -> tuple[Path | None, str]:
    """Pick the file for lab notebook ``expected`` (a name without ``.ipynb``); return it and a note."""
    want = normalize_stem(expected)

    def rank(p: Path) -> int | None:
        if p.name == f"{expected}.ipynb":
            return 0
        if p.name.lower() == f"{expected}.ipynb".lower():
            return 1
        norm = normalize_stem(p.stem)
        if norm == want:
            return 2
        if want in norm:
            return 3
        return None

    ranked = [(rank(p), len(p.relative_to(folder).parts), str(p.relative_to(folder)).lower(), p) for p in candidates]
    ranked = sorted((x for x in ranked if x[0] is not None), key=lambda x: x[:3])
    if not ranked:
        return None, ""
    best = ranked[0][3]
    others = [str(x[3].relative_to(folder)) for x in ranked[1:]]
    note = "" if ranked[0][0] == 0 else f"accepted {best.relative_to(folder)} as {expected}.ipynb"
    if others:
        note = (note + "; " if note else "") + "also found: " + ", ".join(others)
    return best, note


def discover(root: Path, lab_notebooks: list[str]) -> list[Submission]:
    """One :class:`Submission` per student folder directly under ``root`` (sorted by student id)."""
    root = Path(root)
    subs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and is_visible(p, root)):
        sid = folder.name
        if not STUDENT_ID.match(sid):
            subs.append(
                Submission(
                    sid,
                    {},
                    folder,
                    problem=f"folder name {sid!r} is not a usable student id (letters, digits and . _ @ + - only)",
                )
            )
            continue
        files = _notebook_files(folder)
        chosen, notes = {}, []
        for name in lab_notebooks:
            path, note = choose_notebook(files, folder, name)
            if path is None and len(lab_notebooks) == 1 and len(files) == 1:
                path, note = files[0], f"accepted the only notebook, {files[0].relative_to(folder)}, as {name}.ipynb"
            if path is not None:
                chosen[name] = path
            if note:
                notes.append(note)
        problem = ""
        if not chosen:
            expected = ", ".join(f"{n}.ipynb" for n in lab_notebooks)
            problem = (
                f"no notebook found (expected {expected})"
                if not files
                else f"no notebook named like {expected} among: " + ", ".join(str(f.relative_to(folder)) for f in files)
            )
        subs.append(Submission(sid, chosen, folder, problem=problem, note="; ".join(notes)))
    return subs


def unwrap(root: Path, lab: str | None = None) -> Path:
    """Descend through wrapper folders (a zip of ``submissions/<student>/...``) to the folder of students.

    A lone folder is a wrapper unless it holds notebooks, or a folder named
    ``lab`` (nbgrader's ``submitted/<student>/<lab>/`` with one student: that
    lone folder is the student).
    """
    while True:
        entries = [p for p in root.iterdir() if is_visible(p, root)]
        dirs = [p for p in entries if p.is_dir()]
        if len(dirs) != 1 or len(entries) != 1:
            return root
        if any(dirs[0].glob("*.ipynb")) or (lab is not None and (dirs[0] / lab).is_dir()):
            return root
        root = dirs[0]


def extract_zip(zip_path: Path, dest: Path, lab: str | None = None) -> Path:
    """Extract a zip of submissions into ``dest`` (refusing paths that escape it); return the student folder root."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            name = PurePosixPath(info.filename.replace("\\", "/"))
            if name.is_absolute() or ".." in name.parts:
                raise ValueError(f"{zip_path}: refusing member {info.filename!r} (it points outside the archive)")
        zf.extractall(dest)
    return unwrap(dest, lab)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read and validate a submitted notebook, or raise :class:`InvalidNotebook` saying what is wrong."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidNotebook(f"cannot read {path.name}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidNotebook(f"{path.name} is not a notebook: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InvalidNotebook(f"{path.name} is not a notebook: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list) or "nbformat" not in data:
        raise InvalidNotebook(f"{path.name} is JSON but not a Jupyter notebook (no cells/nbformat)")
    if data.get("nbformat") != 4:
        raise InvalidNotebook(
            f"{path.name} uses notebook format {data.get('nbformat')}; expected 4 (save it from JupyterLab)"
        )
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several kinds; each is a bad upload
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidNotebook(f"{path.name} is not a valid notebook: {msg}") from None
    return nb
