"""``course-grades``: the term's final table from every item's score, by the course policy (``course_policy.toml``).

Input, one row per student and item (``SCORES.csv``)::

    student_id,item,category,score,max_score,submitted_at,due_at

Times are ISO 8601 with their UTC offset; an empty ``submitted_at`` means not
submitted (the item scores 0), an empty ``due_at`` means no deadline. For each
student, in this order:

1. **Late days** of each item (:mod:`autograder.classroom.late_days`), after any
   extension: a row's ``due_at`` is that student's due time (an LMS's
   per-student due date); the policy's ``[[extensions]]`` count from the
   item's most common due time and win over the row's. The bank (``late.bank_days``) is spent in due-date order on the
   items of ``late = "bank"`` categories; late days past the bank cost
   ``penalty_per_day`` percent of the item's maximum each, and more than
   ``max_penalty_days`` of them score zero. ``late = "zero"`` categories score
   zero when late at all.
2. **Drops**: the ``drop_lowest`` items with the lowest percentage after
   penalties (excused items do not count).
3. **Categories**: the mean of the kept items' percentages (or their points).
4. **Total**: the weighted mean of the categories, rounded half up to two
   decimals, and its letter.

Every problem in the input (an unknown item, a score above its maximum, a
duplicate row, a time without an offset...) is collected and reported at once,
each naming its row; nothing is computed from a file with problems.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from .. import spreadsheet
from ..labs import CourseError
from .late_days import add_days, late_days
from .policy import Policy

SCORE_COLUMNS = ("student_id", "item", "category", "score", "max_score", "submitted_at", "due_at")


class ScoresError(CourseError):
    """A scores CSV (or roster) that cannot be used; the message lists every problem with its row."""


@dataclass(frozen=True)
class ScoreRow:
    line: int  # in the CSV file (the header is line 1)
    student_id: str
    item: str
    category: str
    score: float | None  # None: empty (not submitted)
    max_score: float
    submitted_at: datetime | None
    due_at: datetime | None


@dataclass
class ItemGrade:
    """One student's item after the policy: the points it keeps and why."""

    item: str
    category: str
    max_score: float
    raw: float = 0.0  # points before late penalties
    score: float = 0.0  # points after them
    late_days: int = 0
    bank_used: int = 0
    penalty: float = 0.0  # points deducted
    dropped: bool = False
    excused: bool = False
    missing: bool = False  # not submitted (or no row at all)
    due: datetime | None = None
    submitted: datetime | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100 * self.score / self.max_score


@dataclass
class StudentGrade:
    student_id: str
    items: dict[str, ItemGrade]
    categories: dict[str, float | None]  # percent, None when the category does not count for this student
    total: float
    letter: str
    late_days_left: int
    audit: list[str]


# --------------------------------------------------------------------------- reading


def _time(text: str, column: str, line: int, problems: list[str]) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        problems.append(f"line {line}: {column} {text!r} is not an ISO 8601 date and time")
        return None
    if when.tzinfo is None:
        problems.append(f"line {line}: {column} {text!r} has no time zone (write it like 2026-10-03T23:59:00-04:00)")
        return None
    return when


def _float(text: str, column: str, line: int, problems: list[str]) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        problems.append(f"line {line}: {column} {text!r} is not a number")
        return None


def read_scores(path: Path | str, policy: Policy) -> list[ScoreRow]:
    """The rows of a scores CSV, checked against the policy; :class:`ScoresError` lists every problem."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            raw_rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ScoresError(f"{path}: cannot read it as CSV ({exc})") from exc
    missing = [c for c in SCORE_COLUMNS if c not in header]
    if missing:
        raise ScoresError(
            f"{path}: missing column(s) {', '.join(missing)}; the header must be {','.join(SCORE_COLUMNS)}"
        )
    problems: list[str] = []
    rows: list[ScoreRow] = []
    seen: dict[tuple[str, str], int] = {}
    first_of_item: dict[str, ScoreRow] = {}
    for line, raw in enumerate(raw_rows, start=2):
        cell = {k: (raw.get(k) or "").strip() for k in SCORE_COLUMNS}
        sid, item, category = cell["student_id"], cell["item"], cell["category"]
        if not sid or not item:
            problems.append(f"line {line}: empty student_id or item")
            continue
        owner = policy.category_of(item)
        if owner is None:
            known = "; ".join(f"{c.name}: {', '.join(c.members)}" for c in policy.categories)
            problems.append(f"line {line}: unknown item {item!r}: no category of the policy has it ({known})")
            continue
        if category != owner.name:
            problems.append(f"line {line}: item {item} is in category {owner.name} by the policy, not {category!r}")
        score = _float(cell["score"], "score", line, problems)
        top = _float(cell["max_score"], "max_score", line, problems)
        submitted = _time(cell["submitted_at"], "submitted_at", line, problems)
        due = _time(cell["due_at"], "due_at", line, problems)
        if top is None or top <= 0:
            problems.append(f"line {line}: max_score must be a number > 0, not {cell['max_score']!r}")
            continue
        if score is not None and not 0 <= score <= top:
            problems.append(f"line {line}: score {score:g} of {sid} on {item} is outside 0..{top:g} (max_score)")
        if score is not None and not cell["submitted_at"] and due is not None and owner.late != "ignore":
            problems.append(
                f"line {line}: {sid} has a score on {item} but no submitted_at; give the time it was handed in, "
                "or leave score empty for not submitted"
            )
        if score is None and submitted is not None:
            problems.append(
                f"line {line}: {sid} handed in {item} (submitted_at) but it has no score; grade it, "
                "or leave submitted_at empty for not submitted"
            )
        if (sid, item) in seen:
            problems.append(f"line {line}: a second row for {sid} and {item} (the first is line {seen[sid, item]})")
            continue
        seen[sid, item] = line
        row = ScoreRow(line, sid, item, owner.name, score, top, submitted, due)
        first = first_of_item.setdefault(item, row)
        if first.max_score != top:
            problems.append(f"line {line}: {item} has max_score {top:g} here, {first.max_score:g} on line {first.line}")
        rows.append(row)
    students = {r.student_id for r in rows}
    items = {r.item for r in rows}
    for ext in policy.extensions:
        if ext.student_id not in students or ext.item not in items:
            problems.append(f"policy extension for {ext.student_id} on {ext.item}: no such student or item in {path}")
    for sid, item in sorted(policy.excused):
        if sid not in students or item not in items:
            problems.append(f"policy excused item {item} of {sid}: no such student or item in {path}")
    if problems:
        raise ScoresError(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
    return rows


# --------------------------------------------------------------------------- computing


def round_half_up(x: float, places: int = 2) -> float:
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def item_rows(rows: Iterable[ScoreRow], policy: Policy) -> dict[str, ScoreRow]:
    """Each item's row for its category, maximum and due time (the first row with the item's most common due
    time: an LMS gives some students their own), by category (the policy's order), then due date, then name:
    the order of the final table's columns."""
    by_item: dict[str, list[ScoreRow]] = {}
    for r in rows:
        by_item.setdefault(r.item, []).append(r)
    firsts: dict[str, ScoreRow] = {}
    for item, its_rows in by_item.items():
        dues = Counter(r.due_at for r in its_rows)
        most = max(dues.values())
        firsts[item] = next(r for r in its_rows if dues[r.due_at] == most)
    rank = {c.name: i for i, c in enumerate(policy.categories)}
    far = datetime.max.replace(tzinfo=policy.zone)
    order = sorted(firsts, key=lambda i: (rank[firsts[i].category], firsts[i].due_at or far, i))
    return {item: firsts[item] for item in order}


def item_order(rows: Iterable[ScoreRow], policy: Policy) -> list[str]:
    """The items in the final table's column order (see :func:`item_rows`)."""
    return list(item_rows(rows, policy))


def _short(when: datetime | None, policy: Policy) -> str:
    return when.astimezone(policy.zone).strftime("%Y-%m-%d %H:%M %Z") if when else "-"


def _item(sid: str, item: str, row: ScoreRow | None, like: ScoreRow, policy: Policy) -> ItemGrade:
    """An item before the bank: its raw points, due time (extensions applied) and late days."""
    category = policy.category_of(item)
    # a row's own due_at is the student's (an LMS's per-student due date); a policy extension counts from the item's
    grade = ItemGrade(item, like.category, like.max_score, due=row.due_at if row is not None else like.due_at)
    if (sid, item) in policy.excused:
        grade.excused = True
        grade.notes.append("excused: not counted")
        return grade
    ext = policy.extension(sid, item)
    if ext is not None and like.due_at is not None:
        grade.due = ext.due_at or add_days(like.due_at, ext.days, policy.zone)
        grade.notes.append(f"extension: due {_short(grade.due, policy)}")
    if row is None:
        grade.missing = True
        grade.notes.append("no row in the scores: not submitted, 0")
        return grade
    if category.late == "ignore" or grade.due is None:
        grade.raw = row.score or 0.0
        grade.submitted = row.submitted_at
        return grade
    if row.submitted_at is None:
        grade.missing = True
        grade.notes.append("not submitted: 0")
        return grade
    grade.raw, grade.submitted = row.score or 0.0, row.submitted_at
    grade.late_days = late_days(row.submitted_at, grade.due, policy.zone, policy.day_boundary)
    return grade


def _apply_late_rules(items: list[ItemGrade], policy: Policy) -> int:
    """Scores after late days, spending the bank in due-date order; return the late days left in the bank."""
    left = policy.bank_days
    far = datetime.max.replace(tzinfo=policy.zone)
    for g in sorted(items, key=lambda g: (g.due or far, g.item)):
        g.score = g.raw
        if g.late_days == 0 or g.excused:
            continue
        rule = policy.category_of(g.item).late
        if rule == "zero":
            g.penalty, g.score = g.raw, 0.0
            g.notes.append(f"{g.late_days} late day(s) in a category where late scores 0")
            continue
        past = g.late_days
        if rule == "bank":
            use = min(g.late_days, left) if policy.partial_bank or g.late_days <= left else 0
            left -= use
            g.bank_used, past = use, g.late_days - use
            g.notes.append(f"{g.late_days} late day(s): {use} from the bank ({left} left)")
        if past > policy.max_penalty_days:
            g.penalty, g.score = g.raw, 0.0
            g.notes.append(f"{past} late day(s) penalised, more than {policy.max_penalty_days}: 0")
        elif past > 0:
            g.penalty = min(g.raw, past * policy.penalty_per_day / 100 * g.max_score)
            g.score = g.raw - g.penalty
            g.notes.append(
                f"{past} late day(s) penalised x {policy.penalty_per_day:g}% of {g.max_score:g} = "
                f"{past * policy.penalty_per_day / 100 * g.max_score:g} points off (at most what it scored)"
            )
    return left


def _drop(items: list[ItemGrade], count: int) -> None:
    """Mark the ``count`` lowest counted items (by percentage after penalties) dropped; one always stays."""
    counted = [g for g in items if not g.excused]
    if count <= 0 or len(counted) <= count:
        return
    for g in sorted(counted, key=lambda g: (g.percent, g.item))[:count]:
        g.dropped = True
        g.notes.append(f"dropped (the lowest {count} of the category)")


def grade_student(sid: str, rows: dict[str, ScoreRow], firsts: dict[str, ScoreRow], policy: Policy) -> StudentGrade:
    """One student's items, categories, total and letter, with the audit trail of each step."""
    items = {item: _item(sid, item, rows.get(item), like, policy) for item, like in firsts.items()}
    left = _apply_late_rules(list(items.values()), policy)
    categories: dict[str, float | None] = {}
    audit = [f"{sid}: final grade by {policy.source or 'the course policy'}", ""]
    for cat in policy.categories:
        members = [g for g in items.values() if g.category == cat.name]
        _drop(members, cat.drop_lowest)
        kept = [g for g in members if not g.excused and not g.dropped]
        if not kept:
            categories[cat.name] = 0.0 if not members and policy.empty_category == "zero" else None
        elif cat.average == "points":
            categories[cat.name] = 100 * sum(g.score for g in kept) / sum(g.max_score for g in kept)
        else:
            categories[cat.name] = sum(g.percent for g in kept) / len(kept)
        audit.append(f"{cat.name} (weight {cat.weight:g}%, {cat.average} of kept items):")
        for g in members:
            points = "excused" if g.excused else f"{g.score:g}/{g.max_score:g} ({g.percent:.2f}%)"
            timing = f"due {_short(g.due, policy)}, submitted {_short(g.submitted, policy)}"
            audit.append(f"  {g.item}: {points}; {timing}" + "".join(f"; {n}" for n in g.notes))
        value = categories[cat.name]
        audit.append(f"  = {value:.2f}%" if value is not None else "  = does not count (no item counts)")
    counted = [(c, categories[c.name]) for c in policy.categories if categories[c.name] is not None]
    weight = sum(c.weight for c, _ in counted)
    total = round_half_up(sum(c.weight * v for c, v in counted) / weight) if weight else 0.0
    terms = " + ".join(f"{c.weight:g} x {v:.2f}" for c, v in counted)
    audit += ["", f"total = ({terms}) / {weight:g} = {total:.2f} -> {policy.letter(total)}"]
    audit.append(f"late days left in the bank: {left} of {policy.bank_days}")
    return StudentGrade(sid, items, categories, total, policy.letter(total), left, audit)


def course_grades(rows: list[ScoreRow], policy: Policy, roster: list[str] | None = None) -> list[StudentGrade]:
    """Every student's final grade, sorted by student id; roster students without rows get all items missing."""
    firsts = item_rows(rows, policy)
    students = sorted({r.student_id for r in rows})
    if roster is not None:
        unknown = sorted(set(students) - set(roster))
        if unknown:
            raise ScoresError(f"student(s) in the scores but not on the roster: {', '.join(unknown)}")
        students = sorted(roster)
    empty = [
        c.name for c in policy.categories if c.weight > 0 and not any(r.category == c.name for r in firsts.values())
    ]
    if empty and policy.empty_category == "error":
        raise ScoresError(
            f"no item of category {', '.join(empty)} in the scores; add their rows, or set "
            'course.empty_category = "renormalize" (a grade so far) or "zero" in the policy'
        )
    by_student: dict[str, dict[str, ScoreRow]] = {s: {} for s in students}
    for r in rows:
        by_student[r.student_id][r.item] = r
    return [grade_student(s, by_student[s], firsts, policy) for s in students]


# --------------------------------------------------------------------------- writing


def final_columns(policy: Policy, items: list[str]) -> list[str]:
    columns = ["student_id", "total", "letter", "late_days_left"]
    columns += [f"{c.name}_percent" for c in policy.categories]
    for item in items:
        columns += [f"{item}_score", f"{item}_late_days", f"{item}_penalty", f"{item}_dropped"]
    return columns


def _num(x: float) -> str:
    return f"{round_half_up(x):.2f}"


def write_final_csv(grades: list[StudentGrade], policy: Policy, items: list[str], out: Path | str) -> None:
    with open(out, "w", newline="") as f:
        writer = spreadsheet.DictWriter(f, fieldnames=final_columns(policy, items))
        writer.writeheader()
        for g in grades:
            row = {"student_id": g.student_id, "total": _num(g.total), "letter": g.letter}
            row["late_days_left"] = g.late_days_left
            for name, value in g.categories.items():
                row[f"{name}_percent"] = "" if value is None else _num(value)
            for item in items:
                it = g.items[item]
                row[f"{item}_score"] = "" if it.excused else _num(it.score)
                row[f"{item}_late_days"] = it.late_days
                row[f"{item}_penalty"] = _num(it.penalty)
                row[f"{item}_dropped"] = "true" if it.dropped else "false"
            writer.writerow(row)


def write_reports(grades: list[StudentGrade], folder: Path | str) -> Path:
    """One text file per student: how their grade was computed (for the student who asks)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for g in grades:
        (folder / f"{g.student_id}.txt").write_text("\n".join(g.audit) + "\n")
    return folder
