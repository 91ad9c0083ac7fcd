"""The course's grading policy (``course_policy.toml``): categories, weights, drops, late days, letters.

The file is TOML; ``course_policy.toml`` at the repository root is the
syllabus's policy and documents every key. :func:`load_policy` reads one and
checks it, raising :class:`PolicyError` with every problem found, each naming
its key (weights that do not add up to 100, an unknown key, a letter table
without a floor at 0...).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..labs import CourseError
from ..paths import PACKAGE_DIR

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

DEFAULT_POLICY = PACKAGE_DIR.parent / "course_policy.toml"

LATE_RULES = ("bank", "penalty", "zero", "ignore")
AVERAGES = ("mean", "points")
EMPTY_CATEGORY_RULES = ("error", "renormalize", "zero")


class PolicyError(CourseError):
    """A policy file that cannot be used; the message lists every problem, each with its key."""


@dataclass(frozen=True)
class Category:
    """A weighted group of items (``[categories.<name>]``)."""

    name: str
    weight: float  # percent of the course total
    members: tuple[str, ...]  # item names or shell patterns (``lab*``)
    late: str = "bank"  # bank: late days from the bank, then a penalty; penalty: penalty from day 1; zero; ignore
    drop_lowest: int = 0  # how many of a student's lowest items (by percentage, after penalties) to drop
    average: str = "mean"  # mean of item percentages, or points (sum of scores / sum of maxima)

    def has(self, item: str) -> bool:
        return any(fnmatch.fnmatchcase(item, pattern) for pattern in self.members)


@dataclass(frozen=True)
class Extension:
    """More time for one student on one item: ``days`` later, or a new ``due_at``."""

    student_id: str
    item: str
    days: int = 0
    due_at: datetime | None = None


@dataclass(frozen=True)
class Policy:
    name: str
    zone: ZoneInfo
    day_boundary: time
    bank_days: int
    penalty_per_day: float  # percent of the item's maximum, per late day past the bank
    max_penalty_days: int  # more late days than this past the bank: the item scores 0
    partial_bank: bool  # a late item takes what is left in the bank and is penalised for the rest
    empty_category: str  # a category with no items in the scores: error, renormalize or zero
    categories: tuple[Category, ...]
    letters: tuple[tuple[str, float], ...]  # (letter, lowest total), highest first
    extensions: tuple[Extension, ...] = ()
    excused: frozenset[tuple[str, str]] = field(default_factory=frozenset)  # (student_id, item)
    source: str = ""

    def category_of(self, item: str) -> Category | None:
        """The first category whose members match ``item``."""
        return next((c for c in self.categories if c.has(item)), None)

    def letter(self, total: float) -> str:
        return next(letter for letter, floor in self.letters if total >= floor)

    def extension(self, student_id: str, item: str) -> Extension | None:
        return next((e for e in self.extensions if e.student_id == student_id and e.item == item), None)

    def due_times(self, item: str, due: datetime) -> dict[str, datetime]:
        """Each extended student's own due time for ``item`` due at ``due`` (aware): ``days`` counts calendar days
        in the course's time zone (same local time), ``due_at`` replaces it."""
        from .late_days import add_days

        return {e.student_id: e.due_at or add_days(due, e.days, self.zone) for e in self.extensions if e.item == item}


_TOP_KEYS = {"course", "late", "categories", "letters", "extensions", "excused"}
_COURSE_KEYS = {"name", "time_zone", "day_boundary", "empty_category"}
_LATE_KEYS = {"bank_days", "penalty_per_day", "max_penalty_days", "partial_bank"}
_CATEGORY_KEYS = {"weight", "members", "late", "drop_lowest", "average"}


def load_policy(path: Path | str | None = None) -> Policy:
    """Read and check a policy file (default: ``course_policy.toml`` of the repository)."""
    path = Path(path) if path else DEFAULT_POLICY
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such policy file") from None
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{path}: not valid TOML: {exc}") from None
    problems: list[str] = []
    policy = _parse(data, problems)
    if problems:
        raise PolicyError(f"{path}: " + "; ".join(problems))
    return dataclasses.replace(policy, source=str(path))


def _unknown(table: dict, allowed: set[str], where: str, problems: list[str]) -> None:
    for key in sorted(set(table) - allowed):
        problems.append(f"unknown key {where}{key} (known: {', '.join(sorted(allowed))})")


def _number(table: dict, key: str, where: str, problems: list[str], default=None, minimum: float = 0):
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        problems.append(f"{where}{key} must be a number >= {minimum:g}, not {value!r}")
        return default if default is not None else minimum
    return value


def _parse(data: dict, problems: list[str]) -> Policy:
    _unknown(data, _TOP_KEYS, "", problems)
    course, late = data.get("course", {}), data.get("late", {})
    _unknown(course, _COURSE_KEYS, "course.", problems)
    _unknown(late, _LATE_KEYS, "late.", problems)
    try:
        zone = ZoneInfo(course.get("time_zone", "America/New_York"))
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(f"course.time_zone {course.get('time_zone')!r} is not a time zone (e.g. America/New_York)")
        zone = ZoneInfo("UTC")
    try:
        boundary = time.fromisoformat(course.get("day_boundary", "23:59"))
    except (TypeError, ValueError):
        problems.append(f"course.day_boundary {course.get('day_boundary')!r} is not a time like 23:59")
        boundary = time(23, 59)
    empty = course.get("empty_category", "error")
    if empty not in EMPTY_CATEGORY_RULES:
        problems.append(f"course.empty_category must be one of {', '.join(EMPTY_CATEGORY_RULES)}, not {empty!r}")
    partial = late.get("partial_bank", True)
    if not isinstance(partial, bool):
        problems.append(f"late.partial_bank must be true or false, not {partial!r}")

    categories = []
    for name, table in data.get("categories", {}).items():
        where = f"categories.{name}."
        if not isinstance(table, dict):
            problems.append(f"categories.{name} must be a table")
            continue
        _unknown(table, _CATEGORY_KEYS, where, problems)
        members = table.get("members", [])
        if not members or not all(isinstance(m, str) and m for m in members):
            problems.append(f"{where}members must be a list of item names or patterns, not {members!r}")
        rule = table.get("late", "bank")
        if rule not in LATE_RULES:
            problems.append(f"{where}late must be one of {', '.join(LATE_RULES)}, not {rule!r}")
        average = table.get("average", "mean")
        if average not in AVERAGES:
            problems.append(f"{where}average must be one of {', '.join(AVERAGES)}, not {average!r}")
        drop = table.get("drop_lowest", 0)
        if isinstance(drop, bool) or not isinstance(drop, int) or drop < 0:
            problems.append(f"{where}drop_lowest must be a whole number >= 0, not {drop!r}")
            drop = 0
        weight = _number(table, "weight", where, problems, minimum=0)
        categories.append(Category(name, float(weight), tuple(members), rule, drop, average))
    if not categories:
        problems.append("no [categories.<name>] table: a policy needs at least one category")
    total = sum(c.weight for c in categories)
    if categories and abs(total - 100) > 1e-9:
        weights = ", ".join(f"categories.{c.name}.weight = {c.weight:g}" for c in categories)
        problems.append(f"the category weights add up to {total:g}, not 100 ({weights})")

    letters = []
    for letter, floor in data.get("letters", {"A": 90, "B": 80, "C": 70, "D": 60, "F": 0}).items():
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor <= 100:
            problems.append(f"letters.{letter} must be a total between 0 and 100, not {floor!r}")
            continue
        letters.append((letter, float(floor)))
    letters.sort(key=lambda pair: -pair[1])
    if letters and letters[-1][1] != 0:
        problems.append(f"letters: the lowest letter ({letters[-1][0]} = {letters[-1][1]:g}) must start at 0")

    extensions = []
    for i, ext in enumerate(data.get("extensions", []), 1):
        where = f"extensions[{i}]."
        _unknown(ext, {"student_id", "item", "days", "due_at"}, where, problems)
        if not ext.get("student_id") or not ext.get("item"):
            problems.append(f"{where} needs student_id and item")
            continue
        due_at = ext.get("due_at")
        if due_at is not None:
            due_at = _aware(due_at, f"{where}due_at", problems)
        days = ext.get("days", 0)
        if (due_at is None) == (not days):
            problems.append(f"{where} needs either days (a whole number > 0) or due_at, one of the two")
        extensions.append(Extension(ext["student_id"], ext["item"], int(days or 0), due_at))
    excused = set()
    for i, ex in enumerate(data.get("excused", []), 1):
        _unknown(ex, {"student_id", "item"}, f"excused[{i}].", problems)
        if not ex.get("student_id") or not ex.get("item"):
            problems.append(f"excused[{i}] needs student_id and item")
            continue
        excused.add((ex["student_id"], ex["item"]))

    late_penalty = _number(late, "penalty_per_day", "late.", problems, default=20)
    return Policy(
        name=str(course.get("name", "")),
        zone=zone,
        day_boundary=boundary,
        bank_days=int(_number(late, "bank_days", "late.", problems, default=0)),
        penalty_per_day=float(late_penalty),
        max_penalty_days=int(_number(late, "max_penalty_days", "late.", problems, default=5)),
        partial_bank=bool(partial),
        empty_category=empty,
        categories=tuple(categories),
        letters=tuple(letters),
        extensions=tuple(extensions),
        excused=frozenset(excused),
    )


def _aware(value, where: str, problems: list[str]) -> datetime | None:
    """A TOML date-time or ISO 8601 text, which must carry its UTC offset."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            problems.append(f"{where} {value!r} is not an ISO 8601 date-time")
            return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        problems.append(f"{where} {value!r} has no UTC offset (write it like 2026-10-03T23:59:00-04:00)")
        return None
    return value
