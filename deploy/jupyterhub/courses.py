"""The courses of a hub with several of them: a small TOML file, one ``[[course]]`` table per course.

    [[course]]
    id = "hpml"                       # letters, digits, - and _: nbgrader's course id, the formgrader's URL
    instructors = ["alice"]           # open this course's formgrader (/services/hpml/formgrader)
    graders = ["ta1", "ta2"]          # the TAs: the same, and nothing of another course
    students = ["s1", "s2"]           # see this course's labs in their Assignments tab

Every name is a local user of the hub's machine; one person may be in several courses, in any role. Each course's
formgrader runs as a user of its own, ``grader-<id>`` (:func:`grader_account`), who owns the course folder, the
gradebook and the course's hand-ins: nbgrader's set-up for several courses on one JupyterHub. Read by
``hubctl.py`` (which checks the users) and by ``jupyterhub_config.py``.
"""

from __future__ import annotations

import pwd
import re
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from PyPI (the course environment has it)
    import tomli as tomllib

ROLES = ("instructors", "graders", "students")
COURSE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,23}")  # grader-<id> must fit a user name (32 characters)


class CourseFileError(ValueError):
    """A course file that cannot be used; the message names the file and the line."""


@dataclass(frozen=True)
class Course:
    id: str
    instructors: tuple[str, ...]
    graders: tuple[str, ...]
    students: tuple[str, ...]

    @property
    def staff(self) -> tuple[str, ...]:
        """Who may open the course's formgrader: its instructors and graders."""
        return tuple(dict.fromkeys(self.instructors + self.graders))

    @property
    def grader_account(self) -> str:
        return grader_account(self.id)


def grader_account(course_id: str) -> str:
    """The local user the course's formgrader runs as (nbgrader's "grader-<course>")."""
    return f"grader-{course_id}"


def _line_of(lines: list[str], start: int, end: int, needle: str) -> int:
    """1-based number of the first line in [start, end) that holds ``needle``, else ``start + 1``."""
    for number in range(start, end):
        if needle in lines[number]:
            return number + 1
    return start + 1


def read_courses(path: Path, *, users_must_exist: bool = True) -> list[Course]:
    """The courses in ``path``; raises CourseFileError naming the line of the first problem.

    Problems: TOML that does not parse, no ``[[course]]``, a missing or malformed ``id``, an id given twice, an
    unknown key, a role that is not a list of names, and (``users_must_exist``) a name that is not a local user.
    """
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message ends "(at line N, column M)" or "(at end of document)"
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = where.group(1) if where else max(1, len(text.splitlines()))
        column = f", column {where.group(2)}" if where else ""
        reason = re.sub(r"\s*\(at [^)]*\)$", "", str(exc))
        raise CourseFileError(f"{path}, line {line}{column}: not TOML: {reason}") from None
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*\[\[\s*course\s*\]\]", line)]
    unknown_tables = set(data) - {"course"}
    if unknown_tables:
        name = sorted(unknown_tables)[0]
        line = _line_of(lines, 0, len(lines), name)
        raise CourseFileError(f"{path}, line {line}: unknown table or key {name!r}; a course is a [[course]] table")
    tables = data.get("course")
    if not isinstance(tables, list) or not tables:
        raise CourseFileError(
            f"{path}, line 1: no [[course]] table: each course is one (see deploy/jupyterhub/courses.py)"
        )
    courses: list[Course] = []
    for index, table in enumerate(tables):
        start = starts[index] if index < len(starts) else 0
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)

        def fail(message: str, needle: str = "", start: int = start, end: int = end) -> CourseFileError:
            line = _line_of(lines, start, end, needle) if needle else start + 1
            return CourseFileError(f"{path}, line {line}: {message}")

        for key in table:
            if key not in ("id", *ROLES):
                raise fail(f"unknown key {key!r} (a course has id, {', '.join(ROLES)})", key)
        course_id = table.get("id")
        if not isinstance(course_id, str) or not COURSE_ID.fullmatch(course_id):
            raise fail(
                f"course id {course_id!r}: 1 to 24 letters, digits, - and _, starting with a letter or digit",
                "id",
            )
        if any(c.id == course_id for c in courses):
            raise fail(f"course id {course_id!r} is given twice", "id")
        people: dict[str, tuple[str, ...]] = {}
        for role in ROLES:
            names = table.get(role, [])
            if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
                raise fail(f'{role} of course {course_id!r}: a list of user names, e.g. {role} = ["ada"]', role)
            for name in names:
                if users_must_exist and not _is_local_user(name):
                    raise fail(
                        f"{role[:-1]} {name!r} of course {course_id!r} is not a user of this machine "
                        f"(create it first: adduser {name})",
                        f'"{name}"',
                    )
            people[role] = tuple(dict.fromkeys(names))
        if not people["instructors"] and not people["graders"]:
            raise fail(f"course {course_id!r} has no instructor and no grader: nobody could grade it")
        courses.append(Course(course_id, people["instructors"], people["graders"], people["students"]))
    return courses


def _is_local_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def everyone(courses: list[Course]) -> list[str]:
    """Every person of every course (not the grader accounts): the hub's allowed users."""
    return sorted({n for c in courses for n in (*c.instructors, *c.graders, *c.students)})
