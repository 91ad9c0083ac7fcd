"""nbgrader's exchange between real Unix users, graded by our autograder (root only).

The whole cycle of a class, each step run as that user (``runuser``) with the
hub's course environment (``/opt/hpml-hub``): the instructor releases lab01 to
an exchange made by root; student1 fetches it and submits the reference
answers, student2 a wrong answer, student3 the reference after the due date,
while ``inbound_guard.py`` hands each finished submission to the instructor;
the instructor collects, ``python -m autograder autograde`` grades the
collected folder and ``feedback`` writes the pages beside it; the instructor
releases the feedback and each student fetches their own.
Then, as student2: no listing of the exchange's inbound or feedback, no reading
of student1's submission (which nbgrader alone leaves readable), home or
feedback, nor of the instructor's course folder and gradebook.
A fourth student, as themselves, leaves links in the inbound while the guard
runs: one in place of a hand-in folder, pointing at student1's hand-in, and a
finished hand-in whose notebook links to the instructor's solutions and whose
other entry links to student1's hand-in, with a back-dated ``timestamp.txt``.
Neither earns a point nor reaches the instructor's collected folder, and the
time is set to when the folder was finished.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from autograder import cli, sample_class
from autograder.paths import CoursePaths
from autograder.pipeline import export, generate
from deploy.jupyterhub import hubctl
from tests.autograder.lab01_class import LAB, SOURCE
from tests.deploy.test_hub import _why_not, as_user

pytestmark = pytest.mark.hub

INSTRUCTOR = "hpmlt-instructor"
STUDENTS = ("hpmlt-student1", "hpmlt-student2", "hpmlt-student3")
ATTACKER = "hpmlt-student4"  # hands in nothing but symbolic links, back-dated
BACK_DATED = "2020-01-01 00:00:00.000000 UTC"
GUARD = hubctl.HERE / "inbound_guard.py"


def q(path: Path) -> str:
    """A path for the shell: nbgrader's inbound names hold spaces (the time)."""
    return shlex.quote(str(path))


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    hubctl.install(hubctl.DEFAULT_PREFIX)
    prefix = tmp_path_factory.mktemp("exchange-users")
    (prefix / "state").mkdir(mode=0o700)
    exchange = hubctl.make_exchange(Path("/srv/nbgrader") / f"hpmlt-exchange-{prefix.name}")
    hubctl.create_demo_users(prefix, INSTRUCTOR, (*STUDENTS, ATTACKER))
    try:
        yield _run_cycle(exchange, tmp_path_factory.mktemp("grading"))
    finally:
        hubctl.remove_demo_users(prefix)
        shutil.rmtree(exchange, ignore_errors=True)


def _run_cycle(exchange: Path, grading: Path) -> dict:
    t0 = time.monotonic()
    home = Path(f"/home/{INSTRUCTOR}")
    course_dir = home / "course"
    paths = CoursePaths.from_env(work=grading)
    release = generate.register_lab(LAB, paths)[0]
    answers = sample_class.build_sample_class(grading / "answers", SOURCE, release)
    # hubctl gave the instructor ~/course (their nbgrader settings name it) with the release of every lab
    assert (course_dir / "release" / LAB / release.name).read_bytes() == release.read_bytes()
    as_user(INSTRUCTOR, f"nbgrader release_assignment {LAB}", exchange)
    inbound = exchange / "hpml" / "inbound"

    def hand_in(student: str, kind: str) -> Path:
        as_user(student, f"nbgrader fetch_assignment {LAB}", exchange)
        mine = Path(f"/home/{student}/{LAB}/{release.name}")
        nbformat.write(nbformat.read(answers[kind], as_version=4), mine)
        subprocess.run(["chown", f"{student}:", str(mine)], check=True)
        as_user(student, f"nbgrader submit {LAB}", exchange)
        (folder,) = inbound.glob(f"{student}+{LAB}+*")  # one hand-in each
        return folder

    first = hand_in(STUDENTS[0], "perfect")
    # the hole nbgrader leaves: whoever learns the folder's name reads the answers
    peek = as_user(STUDENTS[1], f"cat {q(first / release.name)}", exchange, check=False)
    readable_before = peek.returncode == 0
    guard = subprocess.Popen(
        [sys.executable, str(GUARD), str(exchange), "--every", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_until_locked([first])
        second = hand_in(STUDENTS[1], "one_wrong")
        time.sleep(1.1)
        due = datetime.now(timezone.utc)
        time.sleep(1.1)
        third = hand_in(STUDENTS[2], "perfect")
        links = _hand_in_links(exchange, inbound, first, solutions=_instructor_solutions(course_dir))
        _wait_until_locked([first, second, third, links["folder"]])
        _wait_until_gone(links["in_place"])
    finally:
        guard.terminate()
        guard_log = guard.communicate(timeout=10)[0]
    as_user(INSTRUCTOR, f"nbgrader collect {LAB}", exchange)
    # graded here as root, into a grading folder of its own (a kernel that root starts without capabilities
    # cannot enter a home of mode 0700); an instructor grading as themselves can say --grading-dir ~/course
    due_text = due.strftime("%Y-%m-%d %H:%M:%S UTC")
    grade = ["autograde", LAB, str(course_dir / "submitted"), "--due", due_text, "--jobs", "2"]
    assert cli.main(["--grading-dir", str(grading), *grade]) == 0
    assert cli.main(["--grading-dir", str(grading), "feedback", LAB]) == 0
    # nbgrader release_feedback reads feedback/<student>/<lab>/ of the course folder
    shutil.copytree(paths.feedback, course_dir / "feedback")
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course_dir / "feedback")], check=True)
    as_user(INSTRUCTOR, f"nbgrader release_feedback {LAB}", exchange)
    for student in STUDENTS:
        as_user(student, f"nbgrader fetch_feedback {LAB}", exchange)
    seconds = time.monotonic() - t0
    rows = {r.student_id: r for r in export.collect_results(paths)}
    return {
        "rows": rows,
        "exchange": exchange,
        "seconds": seconds,
        "home": home,
        "inbound": [first, second, third],
        "links": links,
        "submitted": course_dir / "submitted",
        "readable_before": readable_before,
        "guard_log": guard_log,
        "pages": {s: paths.feedback / s / LAB / f"{LAB}.html" for s in STUDENTS},
    }


def _instructor_solutions(course_dir: Path) -> Path:
    """The solutions notebook where an instructor keeps it: ``~/course/source/<lab>/`` (theirs, mode 0600)."""
    solutions = course_dir / "source" / LAB / f"{LAB}.ipynb"
    solutions.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCE, solutions)
    os.chmod(solutions, 0o600)
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course_dir / "source")], check=True)
    return solutions


def _hand_in_links(exchange: Path, inbound: Path, classmate: Path, solutions: Path) -> dict[str, Path]:
    """As ATTACKER: a link in place of a hand-in folder (to ``classmate``'s), and a finished hand-in of links.

    The attacker is given the classmate's folder name (nbgrader hides it only behind a random suffix).
    """
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    in_place = inbound / f"{ATTACKER}+{LAB}+{stamp}+link"
    as_user(ATTACKER, f"ln -s {q(classmate)} {q(in_place)}", exchange)
    time.sleep(0.01)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    folder = inbound / f"{ATTACKER}+{LAB}+{stamp}+links"
    as_user(
        ATTACKER,
        f"mkdir {q(folder)} && echo {q(BACK_DATED)} > {q(folder / 'timestamp.txt')}"
        f" && ln -s {q(solutions)} {q(folder / (LAB + '.ipynb'))}"
        f" && ln -s {q(classmate)} {q(folder / 'classmate')} && chmod 0777 {q(folder)}",
        exchange,
    )
    return {"in_place": in_place, "folder": folder}


def _wait_until_gone(link: Path, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while os.path.lexists(link):
        assert time.monotonic() < deadline, f"the inbound guard left {link} for {timeout:.0f} s"
        time.sleep(0.1)


def _wait_until_locked(folders: list[Path], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(f.stat().st_uid == _uid(INSTRUCTOR) and f.stat().st_mode & 0o777 == 0o700 for f in folders):
            return
        time.sleep(0.1)
    raise AssertionError(f"the inbound guard did not lock {folders} within {timeout:.0f} s")


def _uid(user: str) -> int:
    return pwd.getpwnam(user).pw_uid


def _fetched_pages(student: str) -> list[Path]:
    """The feedback pages ``nbgrader fetch_feedback`` put in the student's home (one folder per hand-in)."""
    return sorted(Path(f"/home/{student}/{LAB}/feedback").glob("*/*.html"))


def test_submissions_through_the_exchange_are_graded_with_late_status(cycle):
    rows = {s: r for s, r in cycle["rows"].items() if s != ATTACKER}
    print(f"release, fetch, 3 submissions, collect, autograde, feedback released and fetched: {cycle['seconds']:.1f} s")
    assert sorted(rows) == sorted(STUDENTS)
    perfect, wrong, late = (rows[s] for s in STUDENTS)
    assert perfect.status == "graded" and wrong.status == "graded" and late.status == "late"
    assert perfect.score == late.score and wrong.score < perfect.score
    assert sample_class.WRONG_TEST in wrong.message


def test_each_student_fetches_their_own_feedback_and_no_one_elses(cycle):
    pages = cycle["pages"]
    for student in STUDENTS:
        (fetched,) = _fetched_pages(student)
        assert fetched.name == f"{LAB}.html"
        assert fetched.read_bytes() == pages[student].read_bytes(), f"{student} got another page"
    assert pages[STUDENTS[0]].read_bytes() != pages[STUDENTS[1]].read_bytes()
    spy, feedback = STUDENTS[1], cycle["exchange"] / "hpml" / "feedback"
    assert as_user(spy, f"ls {feedback}", cycle["exchange"], check=False).returncode != 0
    (page,) = _fetched_pages(STUDENTS[0])
    assert as_user(spy, f"cat {page}", cycle["exchange"], check=False).returncode != 0


def test_a_student_cannot_see_other_students_work_or_the_instructors(cycle):
    exchange, spy = cycle["exchange"], STUDENTS[1]
    assert as_user(spy, f"ls {exchange}/hpml/inbound", exchange, check=False).returncode != 0
    assert as_user(spy, f"ls /home/{STUDENTS[0]}", exchange, check=False).returncode != 0
    assert as_user(spy, f"cat /home/{STUDENTS[0]}/{LAB}/{LAB}.ipynb", exchange, check=False).returncode != 0
    assert as_user(spy, f"ls {cycle['home']}/course/submitted", exchange, check=False).returncode != 0
    assert as_user(spy, f"cat {cycle['home']}/course/gradebook.db", exchange, check=False).returncode != 0


def test_the_inbound_guard_closes_submissions_that_nbgrader_leaves_open(cycle):
    exchange, spy = cycle["exchange"], STUDENTS[1]
    assert cycle["readable_before"], "nbgrader's inbound was already closed: the guard's test proves nothing"
    first = cycle["inbound"][0]
    assert f"locked {first.name}" in cycle["guard_log"]
    for folder in cycle["inbound"]:
        assert folder.stat().st_uid == _uid(INSTRUCTOR) and folder.stat().st_mode & 0o777 == 0o700
    assert as_user(spy, f"cat {q(first / (LAB + '.ipynb'))}", exchange, check=False).returncode != 0
    assert as_user(spy, f"touch {q(first / 'planted.txt')}", exchange, check=False).returncode != 0
    # nor can its author change a hand-in after the fact
    assert as_user(STUDENTS[0], f"touch {q(first / 'late-edit.txt')}", exchange, check=False).returncode != 0


def test_links_in_the_inbound_earn_nothing_and_reach_no_one(cycle):
    links, log = cycle["links"], cycle["guard_log"]
    assert f"removed the symbolic link {links['in_place'].name}" in log
    assert f"removed the symbolic link {links['folder'].name}/{LAB}.ipynb" in log
    assert f"removed the symbolic link {links['folder'].name}/classmate" in log
    assert f"{links['folder'].name}/timestamp.txt said '{BACK_DATED}'" in log
    row = cycle["rows"].get(ATTACKER)
    assert row is None or (row.score == 0 and row.status != "graded"), row
    if row is not None:
        print(f"{ATTACKER}: {row.status}: {row.message}")
    collected = list((cycle["submitted"] / ATTACKER).rglob("*"))  # [] when nothing was collected
    print(f"collected for {ATTACKER}: {[str(p.relative_to(cycle['submitted'])) for p in collected]}")
    assert not [p for p in collected if p.is_symlink() or p.name in ("classmate", f"{LAB}.ipynb")]
