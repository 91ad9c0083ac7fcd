"""nbgrader's exchange between real Unix users, graded by our autograder (root only).

The instructor releases lab01 to an exchange made by root; student1 fetches it
and submits the reference answers, student2 a wrong answer, student3 the
reference after the due date; the instructor collects, and ``python -m
autograder autograde`` grades the collected folder. Each step runs as that
user (``runuser``) with the hub's course environment (``/opt/hpml-hub``).
Then, as student2: no listing of the exchange's inbound, no reading of
student1's home, nor of the instructor's course folder and gradebook.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from autograder import cli, export, generate, sample_class
from autograder.paths import CoursePaths
from deploy.jupyterhub import hubctl
from tests.autograder.lab01_class import LAB, SOURCE
from tests.deploy.test_hub import _why_not

pytestmark = pytest.mark.hub

INSTRUCTOR = "hpmlt-instructor"
STUDENTS = ("hpmlt-student1", "hpmlt-student2", "hpmlt-student3")
NBGRADER = hubctl.DEFAULT_PREFIX / "venv" / "bin"


def as_user(user: str, command: str, exchange: Path, check: bool = True) -> subprocess.CompletedProcess:
    """``command`` in a login shell of ``user``, with the course environment's nbgrader and ``exchange``."""
    env = f"PATH={NBGRADER}:$PATH HPML_EXCHANGE={exchange}"
    done = subprocess.run(["runuser", "-l", user, "-c", f"{env} {command}"], capture_output=True, text=True)
    if check:
        assert done.returncode == 0, f"{user}: {command}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    hubctl.install(hubctl.DEFAULT_PREFIX)
    prefix = tmp_path_factory.mktemp("exchange-users")
    (prefix / "state").mkdir(mode=0o700)
    exchange = hubctl.make_exchange(Path("/srv/nbgrader") / f"hpmlt-exchange-{prefix.name}")
    hubctl.create_demo_users(prefix, INSTRUCTOR, STUDENTS)
    try:
        yield _run_cycle(exchange, tmp_path_factory.mktemp("grading"))
    finally:
        hubctl.remove_demo_users(prefix)
        shutil.rmtree(exchange, ignore_errors=True)


def _run_cycle(exchange: Path, grading: Path) -> dict:
    t0 = time.monotonic()
    home = Path(f"/home/{INSTRUCTOR}")
    paths = CoursePaths.from_env(work=grading)
    release = generate.register_lab(LAB, paths)[0]
    answers = sample_class.build_sample_class(grading / "answers", SOURCE, release)
    course_release = home / "course" / "release" / LAB
    course_release.mkdir(parents=True)
    shutil.copy(release, course_release / release.name)
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(home / "course")], check=True)
    course = "--CourseDirectory.root=$HOME/course"
    as_user(INSTRUCTOR, f"nbgrader release_assignment {LAB} {course}", exchange)

    def hand_in(student: str, kind: str) -> None:
        as_user(student, f"nbgrader fetch_assignment {LAB}", exchange)
        mine = Path(f"/home/{student}/{LAB}/{release.name}")
        nbformat.write(nbformat.read(answers[kind], as_version=4), mine)
        subprocess.run(["chown", f"{student}:", str(mine)], check=True)
        as_user(student, f"nbgrader submit {LAB}", exchange)

    hand_in(STUDENTS[0], "perfect")
    hand_in(STUDENTS[1], "one_wrong")
    time.sleep(1.1)
    due = datetime.now(timezone.utc)
    time.sleep(1.1)
    hand_in(STUDENTS[2], "perfect")
    as_user(INSTRUCTOR, f"nbgrader collect {LAB} {course}", exchange)
    collected = home / "course" / "submitted"
    due_text = due.strftime("%Y-%m-%d %H:%M:%S UTC")
    code = cli.main(["autograde", LAB, str(collected), "--grading-dir", str(grading), "--due", due_text, "--jobs", "2"])
    assert code == 0
    rows = {r.student_id: r for r in export.collect_results(paths)}
    return {"rows": rows, "exchange": exchange, "seconds": time.monotonic() - t0, "home": home}


def test_submissions_through_the_exchange_are_graded_with_late_status(cycle):
    rows = cycle["rows"]
    print(f"release, fetch, 3 submissions, collect and autograde: {cycle['seconds']:.1f} s")
    assert sorted(rows) == sorted(STUDENTS)
    perfect, wrong, late = (rows[s] for s in STUDENTS)
    assert perfect.status == "graded" and wrong.status == "graded" and late.status == "late"
    assert perfect.score == late.score and wrong.score < perfect.score
    assert sample_class.WRONG_TEST in wrong.message


def test_a_student_cannot_see_other_students_work_or_the_instructors(cycle):
    exchange, spy = cycle["exchange"], STUDENTS[1]
    assert as_user(spy, f"ls {exchange}/hpml/inbound", exchange, check=False).returncode != 0
    assert as_user(spy, f"ls /home/{STUDENTS[0]}", exchange, check=False).returncode != 0
    assert as_user(spy, f"cat /home/{STUDENTS[0]}/{LAB}/{LAB}.ipynb", exchange, check=False).returncode != 0
    assert as_user(spy, f"ls {cycle['home']}/course/submitted", exchange, check=False).returncode != 0
    assert as_user(spy, f"cat {cycle['home']}/course/gradebook.db", exchange, check=False).returncode != 0
