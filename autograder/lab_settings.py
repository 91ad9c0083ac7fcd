"""What is particular to one lab, read from its folder: ``solutions/<lab>/lab.toml`` and ``mutants.toml``.

A lab is one folder: its source notebook, ``lab.toml`` (its settings) and
``mutants.toml`` (plausible wrong answers, the mutation suite). One
:class:`Lab` reads them; the grading limits, the CI mutants, the pytest
markers, the speed-test runner and the check that nothing hands out an answer
iterate over :func:`all_labs`. Both files are optional: a lab without them gets
the defaults. ``docs/writing-a-lab.md`` documents every key.

``lab.toml``::

    [limits]                    # fields of autograder.limits.Limits that differ from the defaults
    cell_timeout_s = 180
    [needs]                     # what grading it needs from the machine
    gpu = "optional"            # "no" (default), "optional" (uses one when present) or "required"
    mpi = false                 # mpiexec (the mpich wheel brings it)
    cpp = false                 # a C++ compiler and Python's headers
    triton = false              # Triton (Linux x86-64 wheels)
    [tests]
    ci_mutants = ["name"]       # mutants of mutants.toml that `make test` grades
    speed = ["test_x"]          # test cells that time something (run again under load)
    timed_intervals = ["test_y"]  # test cells that read a clock only to check that intervals nest (no speed)
    [graded_functions.NAME]     # a graded pure function and its arguments' domain (autograder.domains)
    args = [{uniform = [0, 1]}]

``mutants.toml``: ``[[mutant]]`` tables with ``name``, ``why``, ``fails`` (the
test cells that must lose their points, and no others; ``[]`` for a must-pass
variant, a right answer written another way that keeps every point) and one or more
``[[mutant.edit]]`` with ``cell`` (an answer cell's grade id), ``right`` (text
of the reference, found exactly once) and ``wrong`` (what the student wrote).

A file that is not valid TOML, an unknown key, a value of the wrong type, a
mutant without ``fails``: :class:`LabSettingsError`, naming the file and the key.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from . import domains
from .labs import CourseError, GradeCellInfo, grade_cells, is_test_cell, list_labs, source_notebooks
from .limits import ENV_VAR, Limits, with_env_overrides
from .paths import CoursePaths

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

SETTINGS_FILE = "lab.toml"
MUTANTS_FILE = "mutants.toml"
GPU_NEEDS = ("no", "optional", "required")
NEED_FLAGS = ("mpi", "cpp", "triton")


class LabSettingsError(CourseError):
    """A lab's ``lab.toml`` or ``mutants.toml`` cannot be used; the message names the file and every bad key."""


@dataclass(frozen=True)
class Needs:
    """What grading a lab needs from the machine (``[needs]``)."""

    gpu: str = "no"
    mpi: bool = False
    cpp: bool = False
    triton: bool = False

    def missing(self) -> list[str]:
        """What this machine lacks of it, each with what to do; [] when grading can start."""
        found = []
        if self.gpu == "required" and not gpu_present():
            found.append("a GPU (the lab's `needs.gpu` is required): grade on a machine with an NVIDIA GPU")
        if self.mpi and shutil.which("mpiexec") is None:
            found.append("mpiexec: `make setup` installs the mpich wheel into .venv; put .venv/bin on PATH")
        if self.cpp and shutil.which(os.environ.get("CXX", "g++")) is None:
            found.append("a C++ compiler: `make cpp-tools` (apt-get install g++ python3-dev)")
        if self.triton and _find_spec("triton") is None:
            found.append("Triton: `make setup` installs it on Linux x86-64 (the `kernels` extra)")
        return found


def _find_spec(module: str):
    import importlib.util

    return importlib.util.find_spec(module)


def gpu_present() -> bool:
    """An NVIDIA GPU this process may use: a device node, unless ``CUDA_VISIBLE_DEVICES`` hides every GPU."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    return any(Path("/dev").glob("nvidia[0-9]*"))


@dataclass(frozen=True)
class Mutant:
    """One plausible wrong answer: text edits of the reference's answer cells.

    ``edits``: (answer cell grade_id, text in the reference, the student's text).
    ``fails``: the test cells (grade_ids) that must lose their points, and no others; empty for a
    must-pass variant (a right answer written another way, which must keep every point).
    """

    name: str
    why: str
    edits: tuple[tuple[str, str, str], ...]
    fails: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Lab:
    """One lab folder of ``solutions/``: its notebooks and its settings (``lab.toml``, ``mutants.toml``)."""

    name: str
    folder: Path
    limit_overrides: Mapping[str, int] = field(default_factory=dict)
    needs: Needs = Needs()
    ci_mutant_names: tuple[str, ...] = ()
    speed_tests: tuple[str, ...] = ()
    interval_tests: tuple[str, ...] = ()
    graded_functions: Mapping[str, tuple[Mapping, ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, name: str, paths: CoursePaths | None = None) -> Lab:
        """The lab ``name`` of the course (``solutions/<name>/``); :class:`CourseError` when there is none."""
        paths = paths or CoursePaths.from_env()
        source_notebooks(name, paths)  # a lab must exist: CourseError naming the labs there are
        return cls.from_folder(paths.source / name)

    @classmethod
    def from_folder(cls, folder: Path) -> Lab:
        path = folder / SETTINGS_FILE
        data = _read_toml(path) if path.exists() else {}
        return cls(name=folder.name, folder=folder, **_parse_settings(data, _shown(path)))

    @property
    def short(self) -> str:
        """``lab04`` for ``lab04_cuda_numba``: the lab's pytest marker and its name in tables."""
        return self.name.split("_")[0]

    @property
    def notebooks(self) -> list[Path]:
        return sorted(self.folder.glob("*.ipynb"))

    @property
    def limits(self) -> Limits:
        """The defaults of :class:`Limits` with this lab's ``[limits]``."""
        return dataclasses.replace(Limits(), **self.limit_overrides)

    def grading_limits(self, env: Mapping[str, str] | None = None) -> Limits:
        """:attr:`limits`, then the environment's one-off overrides (:func:`autograder.limits.with_env_overrides`)."""
        return with_env_overrides(self.limits, env)

    def grade_cells(self) -> list[GradeCellInfo]:
        return [c for nb in self.notebooks for c in grade_cells(nb)]

    @cached_property
    def mutants(self) -> tuple[Mutant, ...]:
        """Every mutant of ``mutants.toml``, checked against the notebook (:class:`LabSettingsError` if not)."""
        path = self.folder / MUTANTS_FILE
        if not path.exists():
            return ()
        found = _parse_mutants(_read_toml(path), _shown(path))
        _raise_if(_mutant_problems(found, self._answer_cells(), self._test_cells(), _shown(path)))
        return found

    @property
    def ci_mutants(self) -> tuple[Mutant, ...]:
        """The mutants ``make test`` grades (``[tests] ci_mutants``), in that order."""
        by_name = {m.name: m for m in self.mutants}
        unknown = [n for n in self.ci_mutant_names if n not in by_name]
        _raise_if(
            [
                f"{_shown(self.folder / SETTINGS_FILE)}: [tests] ci_mutants: no mutant {n!r} in {MUTANTS_FILE}"
                for n in unknown
            ]
        )
        return tuple(by_name[n] for n in self.ci_mutant_names)

    def problems(self) -> list[str]:
        """Every reference of the settings to the notebook that does not hold (speed tests, graded functions, mutants)."""
        where = _shown(self.folder / SETTINGS_FILE)
        tests, answers = self._test_cells(), self._answer_cells()
        found = [
            f"{where}: [tests] {key}: {t!r} is not a test cell of the lab"
            for key, names in (("speed", self.speed_tests), ("timed_intervals", self.interval_tests))
            for t in names
            if t not in tests
        ]
        defined = "\n".join(answers.values())
        found += [
            f"{where}: [graded_functions.{name}]: no answer cell defines {name}()"
            for name in self.graded_functions
            if f"def {name}(" not in defined
        ]
        try:
            self.ci_mutants  # noqa: B018 - reading it checks mutants.toml and the names
        except LabSettingsError as exc:
            found.append(str(exc))
        return found

    def _cells(self):
        import nbformat

        return [c for nb in self.notebooks for c in nbformat.read(nb, as_version=4).cells]

    def _test_cells(self) -> set[str]:
        return {c.metadata["nbgrader"]["grade_id"] for c in self._cells() if is_test_cell(c)}

    def _answer_cells(self) -> dict[str, str]:
        """grade_id -> source of every code answer cell (``solution: true``)."""
        return {
            c.metadata["nbgrader"]["grade_id"]: c.source
            for c in self._cells()
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
        }


def all_labs(paths: CoursePaths | None = None) -> list[Lab]:
    """Every lab of the course, in order (``solutions/*/`` with a notebook)."""
    paths = paths or CoursePaths.from_env()
    return [Lab.from_folder(paths.source / name) for name in list_labs(paths)]


def limits_for(lab: str, env: Mapping[str, str] | None = None) -> Limits:
    """The limits for grading ``lab``: the defaults, the lab's ``[limits]``, then the environment's overrides.

    ``env[ENV_VAR]`` (JSON of every field) replaces the lab's limits; ``lab=""``
    (nbgrader's configuration, before any lab is known) gives the defaults.
    """
    env = os.environ if env is None else env
    if env.get(ENV_VAR, "").strip() or not lab:
        return with_env_overrides(Limits(), env)
    return Lab.load(lab).grading_limits(env)


def limits_table(labs: list[Lab]) -> str:
    """The docs' limits table (markdown): the defaults, then each lab whose ``[limits]`` changes them, in bold."""
    names = [f.name for f in dataclasses.fields(Limits)]
    rows = ["| lab | " + " | ".join(f"`{n}`" for n in names) + " |", "| --- |" + " ---: |" * len(names)]
    changed_labs = [(lab.name, lab.limits, lab.limit_overrides) for lab in labs if lab.limit_overrides]
    for name, limits, changed in [("(defaults)", Limits(), {}), *changed_labs]:
        cells = [f"**{getattr(limits, n):,}**" if n in changed else f"{getattr(limits, n):,}" for n in names]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# --------------------------------------------------------------------------- reading and checking the files


def _shown(path: Path) -> str:
    """The file as the instructor knows it: relative to the course root when it is inside it."""
    try:
        return str(path.relative_to(path.parents[2]))
    except (ValueError, IndexError):
        return str(path)


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LabSettingsError(f"{_shown(path)}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabSettingsError(f"{_shown(path)}: cannot be read: {exc}") from None


def _raise_if(found: list[str]) -> None:
    if found:
        raise LabSettingsError("\n".join(found))


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _string_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _table(data: Mapping, key: str, where: str, known: set[str], found: list[str]) -> Mapping:
    """``data[key]`` as a table (empty when absent), its unknown keys reported."""
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        found.append(f"{where}: [{key}] must be a table, got {type(value).__name__}")
        return {}
    found += [f"{where}: [{key}] {k}: unknown key; known: {sorted(known)}" for k in sorted(set(value) - known)]
    return value


def _parse_settings(data: Mapping, where: str) -> dict:
    """The keyword arguments of :class:`Lab` from ``lab.toml``'s content; :class:`LabSettingsError` on any problem."""
    found: list[str] = []
    tables = {"limits", "needs", "tests", "graded_functions"}
    found += [f"{where}: {k}: unknown key; known: {sorted(tables)}" for k in sorted(set(data) - tables)]

    limit_fields = {f.name for f in dataclasses.fields(Limits)}
    limits = _table(data, "limits", where, limit_fields, found)
    for k, v in limits.items():
        if k in limit_fields and not (_is_int(v) and v > 0):
            found.append(f"{where}: [limits] {k}: expected a positive whole number, got {v!r}")

    needs = _table(data, "needs", where, {"gpu", *NEED_FLAGS}, found)
    if needs.get("gpu", "no") not in GPU_NEEDS:
        found.append(f"{where}: [needs] gpu: expected one of {list(GPU_NEEDS)}, got {needs['gpu']!r}")
    found += [
        f"{where}: [needs] {k}: expected true or false, got {needs[k]!r}"
        for k in NEED_FLAGS
        if k in needs and not isinstance(needs[k], bool)
    ]

    tests = _table(data, "tests", where, {"ci_mutants", "speed", "timed_intervals"}, found)
    found += [
        f"{where}: [tests] {k}: expected a list of names, got {tests[k]!r}"
        for k in ("ci_mutants", "speed", "timed_intervals")
        if k in tests and not _string_list(tests[k])
    ]

    graded = data.get("graded_functions", {})
    if not isinstance(graded, Mapping):
        found.append(f"{where}: [graded_functions] must be a table of tables")
        graded = {}
    for name, spec in graded.items():
        key = f"{where}: [graded_functions.{name}]"
        if not isinstance(spec, Mapping) or set(spec) != {"args"} or not isinstance(spec["args"], list):
            found.append(f"{key}: expected exactly one key, args = [spec, ...]")
            continue
        found += [p for i, arg in enumerate(spec["args"]) for p in domains.problems(arg, f"{key} args[{i}]")]
    _raise_if(found)
    return {
        "limit_overrides": dict(limits),
        "needs": Needs(**needs),
        "ci_mutant_names": tuple(tests.get("ci_mutants", ())),
        "speed_tests": tuple(tests.get("speed", ())),
        "interval_tests": tuple(tests.get("timed_intervals", ())),
        "graded_functions": {name: tuple(spec["args"]) for name, spec in graded.items()},
    }


def _parse_mutants(data: Mapping, where: str) -> tuple[Mutant, ...]:
    found = [f"{where}: {k}: unknown key; a mutant is a [[mutant]] table" for k in sorted(set(data) - {"mutant"})]
    entries = data.get("mutant", [])
    if not isinstance(entries, list):
        _raise_if([*found, f"{where}: mutant: expected [[mutant]] tables"])
    mutants, names = [], set()
    for i, entry in enumerate(entries):
        key = f"{where}: mutant[{i}]" + (
            f" ({entry.get('name')})" if isinstance(entry, Mapping) and "name" in entry else ""
        )
        if not isinstance(entry, Mapping):
            found.append(f"{key}: expected a table")
            continue
        found += [f"{key}: {k}: unknown key" for k in sorted(set(entry) - {"name", "why", "fails", "edit"})]
        name, why = entry.get("name"), entry.get("why")
        if not isinstance(name, str) or not name:
            found.append(f"{key}: name: expected a non-empty string")
        elif name in names:
            found.append(f"{key}: name: {name!r} is used twice")
        names.add(name)
        if not isinstance(why, str) or not why:
            found.append(f"{key}: why: expected the mistake in words")
        fails = entry.get("fails")
        if not _string_list(fails):  # [] is a must-pass variant: a right answer written another way
            found.append(
                f"{key}: fails: expected the list of test cells that must lose their points "
                "([] for a must-pass variant, a right answer that keeps every point)"
            )
        edits = entry.get("edit")
        if not isinstance(edits, list) or not edits:
            found.append(f"{key}: edit: expected one or more [[mutant.edit]] tables")
            edits = []
        for j, edit in enumerate(edits):
            if not isinstance(edit, Mapping) or set(edit) != {"cell", "right", "wrong"}:
                found.append(f"{key}: edit[{j}]: expected exactly cell, right and wrong")
            elif not all(isinstance(edit[k], str) for k in ("cell", "right", "wrong")) or not edit["right"]:
                found.append(f"{key}: edit[{j}]: cell, right and wrong must be strings, right non-empty")
        if not found:
            mutants.append(
                Mutant(name, why, tuple((e["cell"], e["right"], e["wrong"]) for e in edits), frozenset(fails))
            )
    _raise_if(found)
    return tuple(mutants)


def _mutant_problems(mutants: tuple[Mutant, ...], answers: dict[str, str], tests: set[str], where: str) -> list[str]:
    found = []
    for m in mutants:
        found += [
            f"{where}: mutant {m.name}: fails: {t!r} is not a test cell of the lab" for t in sorted(m.fails - tests)
        ]
        found += [
            f"{where}: mutant {m.name}: edit of {cell!r}, which is not an answer cell"
            for cell, _, _ in m.edits
            if cell not in answers
        ]
    return found
