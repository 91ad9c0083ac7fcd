"""Hand-ins downloaded from an LMS, turned into the class layout ``autograde`` reads.

``autograde LAB download.zip --lms auto --roster roster.csv`` reads the
bulk download of Canvas, Moodle, Brightspace (D2L) or Gradescope, finds whose
each file is through the roster, and writes ``<student_id>/<file>`` folders
(with nbgrader's ``timestamp.txt`` where the LMS says when the work was handed
in), then grades them as usual. Every file it cannot place is reported, never
dropped silently; so is every roster student with no hand-in.

What each LMS puts in its download (the student key is what the roster's
``lms_id`` column must hold):

=========== ============================================================= ======================== ==================
LMS         file names in the zip                                         student key              submission time
=========== ============================================================= ======================== ==================
Canvas      ``doejane[_LATE]_<user id>_<attachment id>_<file>``           Canvas user id, or name  none (a LATE flag)
Moodle      ``Jane Doe_<participant id>_assignsubmission_file_[/]<file>`` participant id, or name  none
Brightspace ``<id>-<id> - Jane Doe - Sep 24, 2024 926 PM[/ or - ]<file>`` name                     in the name
Gradescope  ``submission_<id>/<file>`` + ``submission_metadata.yml``       SID, email, or name      ``:created_at:``
=========== ============================================================= ======================== ==================

Roster CSV: a ``student_id`` column (the id grades are recorded under), and
any of ``lms_id``, ``email``, ``name`` to match on; an optional
``submitted_at`` column (ISO time) gives the time where the download has none.
"""

from __future__ import annotations

import csv
import re
import shutil
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..grading.submissions import STUDENT_ID, is_visible
from ..labs import CourseError

FORMATS = ("canvas", "moodle", "brightspace", "gradescope")
NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f %Z"  # what nbgrader writes in timestamp.txt (UTC)

CANVAS = re.compile(r"^(?P<name>[a-z0-9-]+?)(?P<late>_late)?_(?P<uid>\d+)_(?P<aid>\d+)_(?P<file>.+)$", re.IGNORECASE)
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assignsubmission_(?P<kind>file|onlinetext)_(?P<file>.*)$")
BRIGHTSPACE = re.compile(
    r"^(?P<ids>\d+-\d+) - (?P<name>.+?) - (?P<when>[A-Z][a-z]{2} \d{1,2}, \d{4} \d{3,4} [AP]M)(?: - (?P<file>.+))?$"
)
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<sid>\d+)$")


@dataclass(frozen=True)
class HandIn:
    """One file of one student, as the LMS names them."""

    path: Path  # the file, in the extracted download
    file_name: str  # the name the student gave it
    key: str = ""  # the LMS's id of the student (user, participant or Gradescope SID)
    name: str = ""  # the student's name as the LMS writes it
    email: str = ""
    submitted_at: datetime | None = None  # UTC
    late_flag: bool = False  # the LMS marked it late (Canvas), whatever the time


@dataclass
class LmsImport:
    """What became of a download: who was found, and everything that was not."""

    lms: str
    placed: dict[str, list[Path]] = field(default_factory=dict)  # student_id -> files written
    times: dict[str, datetime] = field(default_factory=dict)  # student_id -> submission time (UTC)
    late_flags: list[str] = field(default_factory=list)  # student ids the LMS marked late
    unmatched: list[str] = field(default_factory=list)  # "file: why"
    missing: list[str] = field(default_factory=list)  # roster students with no hand-in

    def report(self) -> list[str]:
        lines = [f"{self.lms}: {len(self.placed)} student(s) matched through the roster"]
        lines += [f"  not placed: {u}" for u in self.unmatched]
        if self.missing:
            lines.append(f"  no hand-in from {len(self.missing)} roster student(s): {', '.join(self.missing)}")
        no_time = sorted(set(self.placed) - set(self.times))
        if no_time:
            lines.append(
                f"  no submission time for {len(no_time)} student(s) (the download has none: add a submitted_at "
                "column to the roster for late days)"
            )
        if self.late_flags:
            lines.append(f"  marked late by {self.lms}: {', '.join(self.late_flags)}")
        return lines


# --------------------------------------------------------------------------- the roster


def name_key(name: str) -> str:
    """``"Doe, Jane"``, ``"Jane Doe"``, ``"doejane"`` -> comparable letters (accents and punctuation dropped)."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _name_keys(name: str) -> set[str]:
    """Both orders of a roster name: Canvas sorts by last name (``doejane``), the others write ``Jane Doe``."""
    if "," in name:
        last, first = name.split(",", 1)
        parts = [first, last]
    else:
        parts = name.split()
    if len(parts) < 2:
        return {name_key(name)}
    return {name_key(" ".join(parts)), name_key(" ".join(parts[-1:] + parts[:-1]))}


@dataclass(frozen=True)
class RosterEntry:
    student_id: str
    lms_id: str = ""
    email: str = ""
    name: str = ""
    submitted_at: datetime | None = None


def read_roster(path: Path) -> list[RosterEntry]:
    """The roster CSV (see the module docstring); a clear error for a missing column, id or time."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise CourseError(f"roster {path}: cannot read it as CSV ({exc})") from exc
    if not rows or "student_id" not in rows[0]:
        raise CourseError(f"roster {path}: needs a student_id column (and any of lms_id, email, name)")
    if not {"lms_id", "email", "name"} & set(rows[0]):
        raise CourseError(f"roster {path}: needs at least one of the columns lms_id, email, name to match files on")
    entries, seen = [], set()
    for line, row in enumerate(rows, start=2):
        sid = (row.get("student_id") or "").strip()
        if not STUDENT_ID.match(sid):
            raise CourseError(f"roster {path}, line {line}: student_id {sid!r} is empty or not a usable id")
        if sid in seen:
            raise CourseError(f"roster {path}, line {line}: student_id {sid} appears twice")
        seen.add(sid)
        when = (row.get("submitted_at") or "").strip()
        entries.append(
            RosterEntry(
                sid,
                (row.get("lms_id") or "").strip(),
                (row.get("email") or "").strip().lower(),
                (row.get("name") or "").strip(),
                _parse_iso(when, f"roster {path}, line {line}") if when else None,
            )
        )
    return entries


def _parse_iso(text: str, where: str) -> datetime:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CourseError(f"{where}: submitted_at {text!r} is not an ISO date and time") from exc
    return _utc(when)


def _utc(when: datetime) -> datetime:
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def match(hand_in: HandIn, roster: list[RosterEntry]) -> tuple[RosterEntry | None, str]:
    """The roster entry of a hand-in, by LMS id, then email, then name; or None and why."""
    if hand_in.key:
        hits = [r for r in roster if r.lms_id and r.lms_id == hand_in.key]
        if len(hits) == 1:
            return hits[0], ""
    if hand_in.email:
        hits = [r for r in roster if r.email and r.email == hand_in.email.lower()]
        if len(hits) == 1:
            return hits[0], ""
    if hand_in.name:
        key = name_key(hand_in.name)
        hits = [r for r in roster if r.name and key in _name_keys(r.name)]
        if len(hits) == 1:
            return hits[0], ""
        if len(hits) > 1:
            return None, f"the name {hand_in.name!r} fits {len(hits)} roster students: give lms_id or email"
    said = ", ".join(
        f"{k} {v!r}" for k, v in [("id", hand_in.key), ("email", hand_in.email), ("name", hand_in.name)] if v
    )
    return None, f"no roster student with {said or 'anything to match on'}"


# --------------------------------------------------------------------------- the formats


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and is_visible(p, root))


def _lms_named(name: str) -> bool:
    return any(p.match(name) for p in (CANVAS, MOODLE, BRIGHTSPACE, GRADESCOPE_FOLDER))


def _unwrap_download(root: Path) -> Path:
    """Descend through folders that only wrap the download (``Lab 01/...``): one folder, named by no LMS rule."""
    while True:
        entries = [p for p in root.iterdir() if is_visible(p, root)]
        if len(entries) == 1 and entries[0].is_dir() and not _lms_named(entries[0].name):
            root = entries[0]
        else:
            return root


def detect(root: Path) -> str:
    """Which LMS made the download in ``root`` (a clear error when none fits)."""
    names = [p.relative_to(root).parts[0] for p in _files(root)]
    if (root / "submission_metadata.yml").is_file():
        return "gradescope"
    scores = {
        "canvas": sum(bool(CANVAS.match(n)) for n in names),
        "moodle": sum(bool(MOODLE.match(n)) for n in names),
        "brightspace": sum(bool(BRIGHTSPACE.match(n)) for n in names),
    }
    best = max(scores, key=scores.get)
    if scores[best] == 0:
        raise CourseError(
            f"{root}: not a Canvas, Moodle, Brightspace or Gradescope download (no file named the way they name "
            "theirs); pass --lms, or lay submissions out as <student_id>/<notebook>.ipynb"
        )
    return best


def canvas_hand_ins(root: Path, local: tzinfo = timezone.utc) -> tuple[list[HandIn], list[str]]:
    found, bad = [], []
    for path in _files(root):
        m = CANVAS.match(path.name)
        if not m or path.parent != root:
            bad.append(f"{path.relative_to(root)}: not named like a Canvas submission (name_userid_attachmentid_file)")
            continue
        found.append(HandIn(path, m["file"], key=m["uid"], name=m["name"], late_flag=bool(m["late"])))
    return found, bad


def moodle_hand_ins(root: Path, local: tzinfo = timezone.utc) -> tuple[list[HandIn], list[str]]:
    found, bad = [], []
    for path in _files(root):
        top = path.relative_to(root).parts[0]
        m = MOODLE.match(top)
        if not m:
            bad.append(f"{path.relative_to(root)}: not named like a Moodle submission (Name_id_assignsubmission_...)")
            continue
        if m["kind"] == "onlinetext":
            bad.append(f"{path.relative_to(root)}: Moodle online text, not a file (ignored)")
            continue
        file_name = m["file"] if path.parent == root else path.name
        found.append(HandIn(path, file_name, key=m["pid"], name=m["name"]))
    return found, bad


def _brightspace_time(text: str, local: tzinfo) -> datetime:
    """``Sep 24, 2024 926 PM``, in the LMS's time zone ``local``, as UTC."""
    month_day_year, clock, half = text.rsplit(" ", 2)
    hours, minutes = int(clock[:-2]), int(clock[-2:])
    when = datetime.strptime(f"{month_day_year} {hours}:{minutes:02d} {half}", "%b %d, %Y %I:%M %p")
    return when.replace(tzinfo=local).astimezone(timezone.utc)


def brightspace_hand_ins(root: Path, local: tzinfo = timezone.utc) -> tuple[list[HandIn], list[str]]:
    found, bad = [], []
    for path in _files(root):
        rel = path.relative_to(root)
        if rel.name == "index.html" and len(rel.parts) == 1:
            continue  # Brightspace's own list of the download
        m = BRIGHTSPACE.match(rel.parts[0])
        if not m or (len(rel.parts) == 1 and not m["file"]):
            bad.append(f"{rel}: not named like a Brightspace submission (ids - Name - date - file)")
            continue
        file_name = m["file"] if len(rel.parts) == 1 else path.name
        found.append(HandIn(path, file_name, name=m["name"], submitted_at=_brightspace_time(m["when"], local)))
    return found, bad


def gradescope_hand_ins(root: Path, local: tzinfo = timezone.utc) -> tuple[list[HandIn], list[str]]:
    import yaml

    try:
        meta = yaml.safe_load((root / "submission_metadata.yml").read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise CourseError(f"{root}/submission_metadata.yml: cannot read it ({exc})") from exc
    found, bad = [], []
    for path in _files(root):
        rel = path.relative_to(root)
        if rel.as_posix() == "submission_metadata.yml":
            continue
        entry = meta.get(rel.parts[0]) if len(rel.parts) > 1 else None
        submitters = (entry or {}).get(":submitters") or []
        if not submitters:
            bad.append(f"{rel}: not in a submission folder that submission_metadata.yml lists")
            continue
        created = entry.get(":created_at")
        if isinstance(created, str):  # PyYAML reads Gradescope's times as datetimes; a quoted one stays text
            try:
                created = datetime.fromisoformat(created)
            except ValueError:
                bad.append(f"{rel}: submission time {created!r} is not a date and time (no time kept)")
                created = None
        for person in submitters:  # a group hand-in counts for each member
            found.append(
                HandIn(
                    path,
                    path.name,
                    key=str(person.get(":sid") or ""),
                    name=str(person.get(":name") or ""),
                    email=str(person.get(":email") or ""),
                    submitted_at=_utc(created) if isinstance(created, datetime) else None,
                )
            )
    return found, bad


READERS = {
    "canvas": canvas_hand_ins,
    "moodle": moodle_hand_ins,
    "brightspace": brightspace_hand_ins,
    "gradescope": gradescope_hand_ins,
}


# --------------------------------------------------------------------------- the class layout


def to_class_folder(
    root: Path, roster: list[RosterEntry], dest: Path, lms: str = "auto", time_zone: str = "UTC"
) -> LmsImport:
    """Write ``dest/<student_id>/<file>`` (and ``timestamp.txt``) from the LMS download in ``root``.

    ``time_zone`` (an IANA name such as ``Europe/Paris``) is the zone of times
    the download writes without one (Brightspace's).
    """
    lms = detect(root) if lms == "auto" else lms
    if lms not in READERS:
        raise CourseError(f"unknown LMS {lms!r}: one of {', '.join(FORMATS)} or auto")
    try:
        local = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise CourseError(f"unknown time zone {time_zone!r}: give an IANA name such as Europe/Paris or UTC") from exc
    hand_ins, bad = READERS[lms](root, local)
    result = LmsImport(lms, unmatched=list(bad))
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for hand_in in hand_ins:
        who, why = match(hand_in, roster)
        if hand_in.path.is_symlink():
            who, why = None, "a symbolic link: links are not followed"
        elif hand_in.file_name.lower() == "timestamp.txt":  # nbgrader would take it as the submission time
            who, why = None, "a student's timestamp.txt is not copied: times come from the LMS or the roster"
        if who is None:
            result.unmatched.append(f"{hand_in.path.relative_to(root)}: {why}")
            continue
        folder = dest / who.student_id
        folder.mkdir(exist_ok=True)
        target = folder / hand_in.file_name
        if target.exists():
            target = folder / f"{target.stem} ({len(result.placed[who.student_id])}){target.suffix}"
        shutil.copy2(hand_in.path, target)
        result.placed.setdefault(who.student_id, []).append(target)
        when = hand_in.submitted_at or who.submitted_at
        if when is not None:
            result.times[who.student_id] = max(when, result.times.get(who.student_id, when))
        if hand_in.late_flag and who.student_id not in result.late_flags:
            result.late_flags.append(who.student_id)
    for sid, when in result.times.items():
        (dest / sid / "timestamp.txt").write_text(when.strftime(NBGRADER_TIME))
    result.missing = [r.student_id for r in roster if r.student_id not in result.placed]
    return result


def import_download(
    lab: str, source: Path, roster_csv: Path, work: Path, lms: str = "auto", time_zone: str = "UTC"
) -> tuple[Path, LmsImport]:
    """Unpack an LMS download (zip or folder) of ``lab`` into ``work/lms/<lab>/`` as student folders.

    Returns the class folder to grade and what the import found; the report is
    also written to ``work/lms/<lab>/import.txt``.
    """
    from ..grading.submissions import ArchiveRefused, extract_zip

    roster = read_roster(roster_csv)
    base = work / "lms" / lab
    refused: dict[str, str] = {}
    if source.is_file():
        if source.suffix.lower() != ".zip":
            raise CourseError(f"{source}: expected the LMS's .zip download or its extracted folder")
        try:
            refused = extract_zip(source, base / "download").refused  # its unwrapping could enter a student's folder
        except ArchiveRefused as exc:
            raise CourseError(str(exc)) from None
        root = _unwrap_download(base / "download")
    elif source.is_dir():
        root = _unwrap_download(source)
    else:
        raise CourseError(f"{source} does not exist")
    result = to_class_folder(root, roster, base / "students", lms, time_zone)
    result.unmatched += [f"{member}: not extracted ({why})" for member, why in refused.items()]
    (base / "import.txt").write_text("\n".join(result.report()) + "\n")
    return base / "students", result
