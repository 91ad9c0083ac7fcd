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

Everything handed in is treated as hostile. A symbolic link anywhere in a
student's folder is never followed: that student is refused with a message (a
link could point at a classmate's notebook or at the solutions). A notebook over
:data:`MAX_NOTEBOOK_BYTES`, with more than :data:`MAX_CELLS` cells or nested
deeper than :data:`MAX_JSON_DEPTH` is an invalid notebook. An archive member
that would land outside the archive's folder, expand past
:data:`MAX_MEMBER_BYTES` or :data:`MAX_EXPANSION` times its compressed size is
not extracted, and the student whose folder it was in is refused; an archive
over :data:`MAX_ARCHIVE_FILES` files or :data:`MAX_ARCHIVE_BYTES` expanded is
refused as a whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import nbformat

STUDENT_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._@+-]*$")

# what a hand-in may be: far above any real notebook of the course (the labs' are under 1 MB with outputs)
MAX_NOTEBOOK_BYTES = 50 * 2**20
MAX_CELLS = 5_000
MAX_JSON_DEPTH = 64  # a notebook's JSON is about 6 deep; widget state adds a few levels
MAX_MEMBER_BYTES = MAX_NOTEBOOK_BYTES  # one file of an archive, expanded
MAX_EXPANSION = 200  # expanded / compressed size of one member (notebooks compress 3 to 10 times)
MAX_ARCHIVE_FILES = 100_000
MAX_ARCHIVE_BYTES = 20 * 2**30

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


def symbolic_links(folder: Path) -> list[str]:
    """The symbolic links in ``folder`` (itself included), as paths relative to its parent; never followed."""
    if folder.is_symlink():
        return [folder.name]
    found = []
    for here, dirs, files in os.walk(folder):  # os.walk does not descend into linked folders
        found += [
            str((Path(here) / n).relative_to(folder.parent)) for n in dirs + files if (Path(here) / n).is_symlink()
        ]
    return sorted(found)


def discover(root: Path, lab_notebooks: list[str], refused: dict[str, str] | None = None) -> list[Submission]:
    """One :class:`Submission` per student folder directly under ``root`` (sorted by student id).

    ``refused``: archive members (paths relative to ``root``) that were not extracted, and why
    (:func:`extract_zip`); the student whose folder held one is refused with that reason.
    """
    root = Path(root)
    refused_in: dict[str, list[str]] = {}
    for member, why in (refused or {}).items():
        parts = PurePosixPath(member).parts
        if len(parts) > 1:
            refused_in.setdefault(parts[0], []).append(f"{member} was not extracted ({why})")
    subs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and is_visible(p, root)):  # a linked folder too
        sid = folder.name
        links = symbolic_links(folder)
        if links or sid in refused_in:
            why = refused_in.get(sid, [])
            if links:
                why.append(
                    "symbolic links are not followed, hand in the files themselves: "
                    + ", ".join(links[:5])
                    + (f" and {len(links) - 5} more" if len(links) > 5 else "")
                )
            subs.append(Submission(sid, {}, folder, problem="; ".join(why)))
            continue
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


class ArchiveRefused(ValueError):
    """The whole archive is refused (too many files, too large expanded, not a zip); the message says why."""


@dataclass(frozen=True)
class Extracted:
    """An archive of submissions, extracted: the folder of students, and the members left out with the reason."""

    root: Path
    refused: dict[str, str]  # member (relative to ``root`` when it is inside it) -> why it was not extracted


def _member_problem(info: zipfile.ZipInfo) -> str:
    name = PurePosixPath(info.filename.replace("\\", "/"))
    if name.is_absolute() or ".." in name.parts:
        return "it points outside the archive"
    if info.file_size > MAX_MEMBER_BYTES:
        return f"it expands to {info.file_size:,} bytes, over the limit of {MAX_MEMBER_BYTES:,}"
    if info.file_size > 2**20 and info.file_size > MAX_EXPANSION * max(info.compress_size, 1):
        return f"it expands {info.file_size // max(info.compress_size, 1):,} times, over the limit of {MAX_EXPANSION}"
    return ""


def extract_zip(zip_path: Path, dest: Path, lab: str | None = None) -> Extracted:
    """Extract a zip of submissions into ``dest``, leaving out the members a hand-in may not hold (they are
    listed with the reason); raise :class:`ArchiveRefused` for an archive that is refused as a whole."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    try:
        zf = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveRefused(f"{zip_path} is not a readable zip archive ({exc})") from None
    with zf:
        members = zf.infolist()
        if len(members) > MAX_ARCHIVE_FILES:
            raise ArchiveRefused(f"{zip_path} holds {len(members):,} files, over the limit of {MAX_ARCHIVE_FILES:,}")
        refused, total = {}, 0
        for info in members:
            why = _member_problem(info)
            if why:
                refused[info.filename] = why
                continue
            total += info.file_size
            if total > MAX_ARCHIVE_BYTES:
                raise ArchiveRefused(f"{zip_path} expands to more than {MAX_ARCHIVE_BYTES:,} bytes")
            zf.extract(info, dest)
    root = unwrap(dest, lab)
    return Extracted(root, {_relative_member(m, root.relative_to(dest)): why for m, why in refused.items()})


def _relative_member(member: str, wrapper: Path) -> str:
    """``member`` relative to the folder of students (below the archive's ``wrapper`` folders), when inside it."""
    parts = PurePosixPath(member.replace("\\", "/")).parts
    return str(PurePosixPath(*parts[len(wrapper.parts) :])) if parts[: len(wrapper.parts)] == wrapper.parts else member


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read and validate a submitted notebook, or raise :class:`InvalidNotebook` saying what is wrong."""
    path = Path(path)
    try:
        if path.is_symlink():
            raise InvalidNotebook(f"{path.name} is a symbolic link; hand in the notebook itself")
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            raise InvalidNotebook(
                f"{path.name} is {size:,} bytes, over the limit of {MAX_NOTEBOOK_BYTES:,} for a notebook "
                "(clear large outputs before handing in: Edit > Clear Outputs of All Cells)"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidNotebook(f"cannot read {path.name}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidNotebook(f"{path.name} is not a notebook: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InvalidNotebook(f"{path.name} is not a notebook: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise InvalidNotebook(f"{path.name} is not a notebook: its JSON is nested too deep to read") from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise InvalidNotebook(f"{path.name} is not a notebook: its JSON is nested more than {MAX_JSON_DEPTH} deep")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list) or "nbformat" not in data:
        raise InvalidNotebook(f"{path.name} is JSON but not a Jupyter notebook (no cells/nbformat)")
    if len(data["cells"]) > MAX_CELLS:
        raise InvalidNotebook(f"{path.name} has {len(data['cells']):,} cells, over the limit of {MAX_CELLS:,}")
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
    _check_grade_ids(nb, path.name)
    return nb


def _check_grade_ids(nb: nbformat.NotebookNode, name: str) -> None:
    """nbgrader finds a cell by its grade id: two cells with one id (a pasted copy) would confuse the grading."""
    seen: dict[str, int] = {}
    for i, cell in enumerate(nb.cells, start=1):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id is None:
            continue
        if not isinstance(grade_id, str):
            raise InvalidNotebook(f"{name}: cell {i} has a grade id that is not text ({grade_id!r})")
        if grade_id in seen:
            raise InvalidNotebook(
                f"{name}: the graded cell {grade_id!r} appears twice (cells {seen[grade_id]} and {i}); a copied "
                "graded cell keeps its nbgrader id: delete the copy, or start again from the release"
            )
        seen[grade_id] = i


def json_depth(data: object) -> int:
    """How deep ``data`` nests (a scalar: 0, ``[]`` and ``[1]``: 1), without recursion."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth + 1)
            stack += [(v, depth + 1) for v in (value.values() if isinstance(value, dict) else value)]
    return deepest
