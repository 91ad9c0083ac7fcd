"""Two courses on one hub, for real (root only): real local users, a course file, each course's formgrader run as
its grader account, nbgrader's exchange between them.

One instructor teaches both courses; each has a TA; one student takes both, another only course A. The TA of
course A opens A's formgrader and gets 403 from B's (its page and its gradebook's API), as do the students; the
student of both courses lists and fetches the labs of both through nbgrader with their own server's token (the
JupyterHubAuthPlugin reads their groups), the student of A alone sees only A's and cannot fetch B's. A hand-in to
course B goes to B's grader account (the inbound guard), and A's TA can read neither it nor B's course folder.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from deploy.jupyterhub import hubctl
from tests.deploy.test_hub import _owners_of, _server_up, _session, _status, as_user, running_hub

pytestmark = pytest.mark.hub

COURSE_A, COURSE_B = "hpmlt-a", "hpmlt-b"
LAB_A, LAB_B = "lab01_benchmarking", "lab02_profiling"
INSTRUCTOR = "hpmlt-teacher"
TA_A, TA_B = "hpmlt-ta-a", "hpmlt-ta-b"
BOTH, ONLY_A = "hpmlt-stu-ab", "hpmlt-stu-a"
COURSES = f"""\
# two courses, one instructor for both
[[course]]
id = "{COURSE_A}"
instructors = ["{INSTRUCTOR}"]
graders = ["{TA_A}"]
students = ["{BOTH}", "{ONLY_A}"]

[[course]]
id = "{COURSE_B}"
instructors = ["{INSTRUCTOR}"]
graders = ["{TA_B}"]
students = ["{BOTH}"]
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("courses-hub")
    exchange = hubctl.make_exchange(Path("/srv/nbgrader") / f"hpmlt-exchange-{prefix.name}")
    try:
        with running_hub(
            prefix, INSTRUCTOR, (TA_A, TA_B, BOTH, ONLY_A), courses=COURSES, exchange=exchange, cull_idle_s=0
        ) as running:
            running["exchange"] = exchange
            for course, lab in ((COURSE_A, LAB_A), (COURSE_B, LAB_B)):
                as_course_user(
                    hubctl.course_file.grader_account(course), f"nbgrader release_assignment {lab}", exchange
                )
            yield running
    finally:
        shutil.rmtree(exchange, ignore_errors=True)


def as_course_user(
    user: str, command: str, exchange: Path, env: str = "", check: bool = True
) -> subprocess.CompletedProcess:
    """:func:`as_user` on a hub of several courses (nbgrader's settings then name each course's folder)."""
    return as_user(user, command, exchange, f"HPML_HUB_COURSES=yes {env}", check)


def _formgrader_status(opener, url: str, course: str, timeout: float = 120.0) -> int:
    """The status of the course's formgrader page for this session, once its service answers at all."""
    address = f"{url}/services/{course}/formgrader"
    deadline = time.monotonic() + timeout
    while True:
        status = _status(opener, address)
        if status not in (502, 503) or time.monotonic() > deadline:  # 503: the service is still starting
            return status
        time.sleep(1)


def _as_server(user: str) -> str:
    """The variables nbgrader reads in ``user``'s running server (who they are, the hub's API and the server's
    token), read from that server's environment as root: the command line then acts as the Assignments tab."""
    pids = subprocess.run(["pgrep", "-u", user, "-f", "jupyterhub-singleuser"], capture_output=True, text=True)
    for pid in pids.stdout.split():
        entries = Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0")
        env = dict(e.split("=", 1) for e in entries if e.startswith("JUPYTERHUB_"))
        if "JUPYTERHUB_API_TOKEN" in env:
            keys = ("JUPYTERHUB_USER", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_API_URL")
            return " ".join(f"{k}={shlex.quote(env[k])}" for k in keys)
    raise AssertionError(f"no server of {user} running")


def test_each_course_formgrader_runs_as_its_grader_account(hub):
    wanted = {hubctl.course_file.grader_account(c) for c in (COURSE_A, COURSE_B)}
    deadline = time.monotonic() + 120
    while not wanted <= _owners_of("jupyterhub-singleuser") and time.monotonic() < deadline:
        time.sleep(1)
    assert wanted <= _owners_of("jupyterhub-singleuser")


def test_a_ta_opens_their_course_formgrader_and_not_the_other_courses(hub):
    url, passwords = hub["url"], hub["passwords"]
    ta = _session(url, TA_A, passwords[TA_A])
    assert _formgrader_status(ta, url, COURSE_A) == 200
    assert _formgrader_status(ta, url, COURSE_B) == 403
    assert _status(ta, f"{url}/services/{COURSE_B}/formgrader/api/assignments") == 403  # B's gradebook
    teacher = _session(url, INSTRUCTOR, passwords[INSTRUCTOR])
    assert [_formgrader_status(teacher, url, c) for c in (COURSE_A, COURSE_B)] == [200, 200]
    student = _session(url, BOTH, passwords[BOTH])
    assert [_formgrader_status(student, url, c) for c in (COURSE_A, COURSE_B)] == [403, 403]


def test_a_student_of_both_courses_fetches_from_both_and_a_student_of_one_from_one(hub):
    url, passwords, exchange = hub["url"], hub["passwords"], hub["exchange"]
    for user in (BOTH, ONLY_A):
        _server_up(_session(url, user, passwords[user]), url, user)
    both = _as_server(BOTH)
    done = as_course_user(BOTH, "nbgrader list", exchange, both)
    listed = done.stdout + done.stderr
    assert f"{COURSE_A} {LAB_A}" in listed and f"{COURSE_B} {LAB_B}" in listed, listed
    for course, lab in ((COURSE_A, LAB_A), (COURSE_B, LAB_B)):
        as_course_user(BOTH, f"nbgrader fetch_assignment --course {course} {lab}", exchange, both)
        assert list(Path(f"/home/{BOTH}/{course}/{lab}").glob("*.ipynb")), f"{course} {lab} not fetched"
    only_a = _as_server(ONLY_A)
    done = as_course_user(ONLY_A, "nbgrader list", exchange, only_a)
    listed = done.stdout + done.stderr
    assert f"{COURSE_A} {LAB_A}" in listed and COURSE_B not in listed, listed
    refused = as_course_user(
        ONLY_A, f"nbgrader fetch_assignment --course {COURSE_B} {LAB_B}", exchange, only_a, check=False
    )
    assert refused.returncode != 0 and not Path(f"/home/{ONLY_A}/{COURSE_B}").exists(), refused.stderr


def test_the_formgrader_account_enrolls_and_removes_a_student(hub):
    """``nbgrader db student add`` in course B's folder, with its formgrader's token (what Manage Students does),
    puts the student in the group nbgrader-B, and their Assignments tab lists B's labs; ``remove`` undoes it."""
    url, passwords, exchange = hub["url"], hub["passwords"], hub["exchange"]
    grader_b = hubctl.course_file.grader_account(COURSE_B)
    formgrader = _as_server(grader_b)  # the service's own token
    _server_up(_session(url, ONLY_A, passwords[ONLY_A]), url, ONLY_A)
    only_a = _as_server(ONLY_A)
    for command, listed_after in (("add", True), ("remove --force", False)):
        as_course_user(grader_b, f"nbgrader db student {command} {ONLY_A}", exchange, formgrader)
        done = as_course_user(ONLY_A, "nbgrader list", exchange, only_a)
        assert (f"{COURSE_B} {LAB_B}" in done.stdout + done.stderr) == listed_after, (command, done.stderr)


def test_a_hand_in_to_course_b_is_closed_to_course_as_ta(hub):
    exchange = hub["exchange"]
    url, passwords = hub["url"], hub["passwords"]
    _server_up(_session(url, BOTH, passwords[BOTH]), url, BOTH)
    both = _as_server(BOTH)
    if not Path(f"/home/{BOTH}/{COURSE_B}/{LAB_B}").exists():
        as_course_user(BOTH, f"nbgrader fetch_assignment --course {COURSE_B} {LAB_B}", exchange, both)
    as_course_user(BOTH, f"nbgrader submit --course {COURSE_B} {LAB_B}", exchange, both)
    inbound = exchange / COURSE_B / "inbound"
    grader_b = hubctl.course_file.grader_account(COURSE_B)
    deadline = time.monotonic() + 30
    (hand_in,) = inbound.glob(f"{BOTH}+{LAB_B}+*")
    while hand_in.owner() != grader_b and time.monotonic() < deadline:
        time.sleep(0.2)
    assert hand_in.owner() == grader_b and (hand_in.stat().st_mode & 0o777) == 0o700
    for path in (hand_in, inbound, Path(f"/home/{grader_b}/{COURSE_B}")):
        peek = as_course_user(TA_A, f"ls {shlex.quote(str(path))}", exchange, check=False)
        assert peek.returncode != 0 and "Permission denied" in peek.stderr, (path, peek.stdout)
