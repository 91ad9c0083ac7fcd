"""The class JupyterHub, for real: PAM log-in as local Unix users, each server run as its user, stopped by pid.

``deploy/jupyterhub/hubctl.py`` installs the course environment and the proxy
(cached in ``/opt/hpml-hub``), the test creates its own users
(``hpmlt-instructor``, ``hpmlt-student1``, ``hpmlt-student2``, with random
passwords) and starts the hub on a free port; everything is removed after.
Needs root (users, PAM, servers started as other users), npm and a Python
every user can run; it skips, saying which, where the machine has none.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy import ports
from deploy.jupyterhub import hubctl

pytestmark = pytest.mark.hub

INSTRUCTOR = "hpmlt-instructor"
STUDENTS = ("hpmlt-student1", "hpmlt-student2")


def _why_not() -> str:
    if os.geteuid() != 0:
        return "not root: the hub needs root to log users in with PAM and start their servers"
    if shutil.which("npm") is None:
        return "no npm (apt-get install nodejs npm) for configurable-http-proxy"
    if shutil.which("useradd") is None:
        return "no useradd on this machine"
    try:
        hubctl.base_python()
    except SystemExit as exc:
        return str(exc)
    return ""


def as_user(user: str, command: str, exchange: Path, env: str = "", check: bool = True) -> subprocess.CompletedProcess:
    """``command`` in a login shell of ``user`` with the course environment's nbgrader and the exchange ``exchange``;
    ``env``: more ``NAME=value`` words for that shell. ``check``: the command must succeed."""
    bin_dir = hubctl.DEFAULT_PREFIX / "venv" / "bin"
    env = f"PATH={bin_dir}:$PATH HPML_EXCHANGE={exchange} {env}"
    done = subprocess.run(["runuser", "-l", user, "-c", f"{env} {command}"], capture_output=True, text=True)
    if check:
        assert done.returncode == 0, f"{user}: {command}\n{done.stdout}\n{done.stderr}"
    return done


@contextlib.contextmanager
def running_hub(
    prefix: Path, instructor: str, students: tuple[str, ...], courses: str | None = None, **start_options
) -> Iterator[dict]:
    """A hub of its own in the empty folder ``prefix``, with these users; stopped and the users removed after.

    ``courses``: the text of a course file over these users (a hub of several courses, without admins); their
    grader accounts are made before the start and removed after. Skips, saying why, where the machine cannot
    run it. ``start_options``: :func:`hubctl.start`'s keywords.
    """
    why = _why_not()
    if why:
        pytest.skip(why)
    hubctl.install(hubctl.DEFAULT_PREFIX)  # the environment is cached there between runs
    for shared in ("venv", "proxy"):
        (prefix / shared).symlink_to(hubctl.DEFAULT_PREFIX / shared)
    (prefix / "state").mkdir(mode=0o700)
    passwords = hubctl.create_demo_users(prefix, instructor, students)
    course_list = []
    try:
        if courses is not None:
            (prefix / "courses.toml").write_text(courses)
            course_list = hubctl.course_file.read_courses(prefix / "courses.toml")  # removed after, even half made
            hubctl.prepare_courses(prefix / "courses.toml")
            start_options["courses"] = prefix / "courses.toml"
        admins = [] if courses is not None else [instructor]
        url = hubctl.start(prefix, ports.free_port(), list(students), admins, **start_options)
        yield {"url": url, "prefix": prefix, "passwords": passwords, "courses": course_list}
    finally:
        hubctl.stop(prefix)
        hubctl.remove_demo_users(prefix)
        if course_list:
            hubctl.remove_grader_accounts(course_list)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    with running_hub(tmp_path_factory.mktemp("hub"), INSTRUCTOR, STUDENTS) as running:
        yield running


def _session(url: str, user: str, password: str) -> urllib.request.OpenerDirector:
    """Log in through the hub's form (XSRF token included); the opener keeps the cookies."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{url}/hub/login").read().decode()
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"username": user, "password": password, "_xsrf": xsrf}).encode()
    try:
        opener.open(f"{url}/hub/login?next=", data=form)
    except urllib.error.HTTPError as exc:
        assert exc.code == 403, exc  # a refused log-in: the form again, with an error
    return opener


def _server_up(opener, url: str, user: str, timeout: float = 120.0) -> float:
    """Seconds until ``user``'s server answers through the proxy (its OAuth hand-shake with the hub included)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            r = opener.open(f"{url}/user/{user}/lab")
            if r.url.startswith(f"{url}/user/{user}/lab"):
                status = json.loads(opener.open(f"{url}/user/{user}/api/status").read())
                assert "started" in status
                return time.monotonic() - t0
        except urllib.error.URLError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{user}'s server did not start in {timeout:.0f} s")


def _status(opener, address: str) -> int:
    try:
        return opener.open(address).status
    except urllib.error.HTTPError as exc:
        return exc.code


def _owners_of(command_part: str) -> set[str]:
    ps = subprocess.run(["ps", "-ww", "-eo", "user:32,args"], capture_output=True, text=True, check=True).stdout
    return {line.split(None, 1)[0] for line in ps.splitlines()[1:] if command_part in line}


def test_a_student_logs_in_and_gets_a_server_running_as_themselves(hub):
    student = STUDENTS[0]
    opener = _session(hub["url"], student, hub["passwords"][student])
    seconds = _server_up(opener, hub["url"], student)
    print(f"{student}: server up {seconds:.1f} s after log-in")
    assert student in _owners_of("jupyterhub-singleuser")
    # nbgrader: no Formgrader for a student
    assert _status(opener, f"{hub['url']}/user/{student}/formgrader") == 404
    # and no way into another student's server
    assert _status(opener, f"{hub['url']}/user/{STUDENTS[1]}/api/status") in (403, 404, 503)


def test_the_instructor_gets_the_formgrader(hub):
    opener = _session(hub["url"], INSTRUCTOR, hub["passwords"][INSTRUCTOR])
    _server_up(opener, hub["url"], INSTRUCTOR)
    assert _status(opener, f"{hub['url']}/user/{INSTRUCTOR}/formgrader") == 200
    assert INSTRUCTOR in _owners_of("jupyterhub-singleuser")


def test_a_wrong_password_or_an_unlisted_user_gets_no_server(hub):
    opener = _session(hub["url"], STUDENTS[1], "not-the-password")
    assert _status(opener, f"{hub['url']}/hub/api/user") in (401, 403)
    opener = _session(hub["url"], "root", "anything")  # a real local user, not on the class list
    assert _status(opener, f"{hub['url']}/hub/api/user") in (401, 403)


def _guard_pids(hub_pid: int) -> list[int]:
    """The hub's inbound-guard service (inbound_guard.py), found among the hub's descendants."""
    return [p for p in hubctl._spawned_pids(hub_pid) if "inbound_guard.py" in Path(f"/proc/{p}/cmdline").read_text()]


def test_the_hub_runs_the_inbound_guard_as_root(hub):
    pid = int((hub["prefix"] / "state" / "hub.pid").read_text())
    (guard,) = _guard_pids(pid)
    assert os.stat(f"/proc/{guard}").st_uid == 0  # it changes owners in the exchange
    assert "root" in _owners_of("inbound_guard.py")


def test_stop_ends_the_hub_the_proxy_and_every_server(hub):
    pid = int((hub["prefix"] / "state" / "hub.pid").read_text())
    spawned = hubctl._spawned_pids(pid)
    assert spawned, "the hub should have started the proxy and the servers"
    assert _guard_pids(pid)
    assert hubctl.stop(hub["prefix"])
    assert not hubctl._alive(pid) and not any(hubctl._alive(p) for p in spawned)
    assert not (_owners_of("jupyterhub-singleuser") & {INSTRUCTOR, *STUDENTS})
    assert not _owners_of("inbound_guard.py")
    assert not Path(hub["prefix"] / "state" / "hub.pid").exists()
