"""The final table for an LMS gradebook (Canvas, Brightspace) and as a picture.

Canvas imports a CSV whose first five columns are ``Student, ID, SIS User ID,
SIS Login ID, Section`` (one of the first three identifies the student), then
one column per assignment; a column with a new name creates that assignment. A
``Points Possible`` row under the header, as in Canvas's own export, gives its
maximum.

Brightspace (D2L) imports ``OrgDefinedId, Username`` (either identifies the
student), then ``<grade item> Points Grade`` per item, and a last column
``End-of-Line Indicator`` holding ``#`` on every row.

Both take the LMS's ids from the roster CSV of ``autograde --roster``
(``student_id, lms_id, email, name``): ``lms_id`` is Canvas's user id or
Brightspace's Org Defined ID, ``student_id`` the SIS id or username.
"""

from __future__ import annotations

from pathlib import Path

from .. import spreadsheet
from .course_grades import StudentGrade, round_half_up
from .lms import RosterEntry
from .policy import Policy

TOTAL = "total"


def _value(grade: StudentGrade, column: str) -> tuple[str, float]:
    """The value to import for ``column`` (``total`` or an item) and its maximum."""
    if column == TOTAL:
        return f"{grade.total:.2f}", 100.0
    item = grade.items[column]
    return ("" if item.excused else f"{round_half_up(item.score):.2f}"), item.max_score


def _check(grades: list[StudentGrade], column: str) -> None:
    if column != TOTAL and grades and column not in grades[0].items:
        raise ValueError(f"no item {column!r} in the grades (items: {', '.join(grades[0].items)}, or total)")


def write_canvas(grades: list[StudentGrade], roster: dict[str, RosterEntry], column: str, title: str, out) -> None:
    """Canvas's gradebook import CSV with one assignment column, ``title``."""
    _check(grades, column)
    with open(out, "w", newline="") as f:
        writer = spreadsheet.writer(f)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title])
        top = _value(grades[0], column)[1] if grades else 100.0
        writer.writerow(["    Points Possible", "", "", "", "", f"{top:g}"])
        for g in grades:
            who = roster.get(g.student_id, RosterEntry(g.student_id))
            writer.writerow([who.name or g.student_id, who.lms_id, g.student_id, who.email, "", _value(g, column)[0]])


def write_brightspace(grades: list[StudentGrade], roster: dict[str, RosterEntry], column: str, title: str, out) -> None:
    """Brightspace's grades import CSV with one points grade item, ``title``."""
    _check(grades, column)
    with open(out, "w", newline="") as f:
        writer = spreadsheet.writer(f)
        writer.writerow(["OrgDefinedId", "Username", f"{title} Points Grade", "End-of-Line Indicator"])
        for g in grades:
            who = roster.get(g.student_id, RosterEntry(g.student_id))
            writer.writerow([who.lms_id, g.student_id, _value(g, column)[0], "#"])


def plot_grades(grades: list[StudentGrade], policy: Policy, out: Path | str) -> Path:
    """Two panels: the distribution of totals (with the letter cut-offs), and each category's percentages."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    totals = [g.total for g in grades]
    left.hist(totals, bins=range(0, 105, 5), color="#4c72b0", edgecolor="white")
    left.yaxis.set_major_locator(MaxNLocator(integer=True))
    top = left.get_ylim()[1]
    upper = 100.0
    for letter, floor in policy.letters:  # highest first: each letter's band is [floor, the next one up)
        if floor > 0:
            left.axvline(floor, color="grey", lw=0.6, ls=":")
        left.text((floor + upper) / 2, top, letter, fontsize=7, color="dimgrey", ha="center", va="bottom")
        upper = floor
    left.set(xlabel="final total (%)", ylabel="students", xlim=(0, 100))
    left.set_title(f"Final totals ({len(grades)} students), letters above", pad=14)
    names = [c.name for c in policy.categories]
    values = [[g.categories[n] for g in grades if g.categories[n] is not None] for n in names]
    right.boxplot(values, showmeans=True)
    right.set_xticks(range(1, len(names) + 1), [f"{n}\n({c.weight:g}%)" for n, c in zip(names, policy.categories)])
    right.set(ylabel="category score (%)", ylim=(-5, 105), title="Per category (after drops and penalties)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)
