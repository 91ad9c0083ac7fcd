"""The class hub's idle culler, for real: a student's idle server and its kernel are stopped on their own.

A hub of its own (the culler would stop the servers of ``test_hub.py``'s hub),
with ``jupyterhub-idle-culler`` set to stop servers idle for 45 seconds. The
student logs in, starts a kernel through the server's REST API, then does
nothing; the test watches the processes with ``ps`` (a request through the hub
would count as activity). Needs what ``test_hub.py`` needs; skips, saying which,
where the machine has none.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request

import pytest

from tests.deploy.test_hub import _owners_of, _server_up, _session, running_hub

pytestmark = pytest.mark.hub

INSTRUCTOR = "hpmlt-idle-instructor"
STUDENT = "hpmlt-idle-student"
IDLE_S = 45


@pytest.fixture(scope="module")
def idle_hub(tmp_path_factory):
    with running_hub(tmp_path_factory.mktemp("idle-hub"), INSTRUCTOR, (STUDENT,), cull_idle_s=IDLE_S) as running:
        yield running


def _start_kernel(opener, url: str, user: str) -> str:
    """A kernel started through the user's server (the XSRF token from its cookie); its id."""
    jar = next(h.cookiejar for h in opener.handlers if isinstance(h, urllib.request.HTTPCookieProcessor))
    # the server's own token (the hub sets another for /hub/)
    xsrf = next(c.value for c in jar if c.name == "_xsrf" and c.path.startswith(f"/user/{user}"))
    request = urllib.request.Request(
        f"{url}/user/{user}/api/kernels", data=b"{}", method="POST", headers={"X-XSRFToken": xsrf}
    )
    return json.loads(opener.open(request).read())["id"]


def _kernel_running(user: str, kernel_id: str) -> bool:
    return user in _owners_of(kernel_id)  # the kernel's connection file is named after its id


def test_an_idle_server_and_its_kernel_are_stopped_by_the_culler(idle_hub):
    url = idle_hub["url"]
    opener = _session(url, STUDENT, idle_hub["passwords"][STUDENT])
    _server_up(opener, url, STUDENT)
    kernel = _start_kernel(opener, url, STUDENT)
    deadline = time.monotonic() + 30
    while not _kernel_running(STUDENT, kernel) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _kernel_running(STUDENT, kernel), "the kernel did not start"
    assert STUDENT in _owners_of("jupyterhub-singleuser")
    idle_since = time.monotonic()
    # the culler looks every IDLE_S / 4 s; the server reports its last activity when it starts and stops
    deadline = idle_since + IDLE_S + 120
    while STUDENT in _owners_of("jupyterhub-singleuser") and time.monotonic() < deadline:
        time.sleep(1)
    stopped_after = time.monotonic() - idle_since
    assert STUDENT not in _owners_of("jupyterhub-singleuser"), f"the server still runs {stopped_after:.0f} s later"
    deadline = time.monotonic() + 20
    while _kernel_running(STUDENT, kernel) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _kernel_running(STUDENT, kernel), "the server stopped but left its kernel running"
    log = (idle_hub["prefix"] / "state" / "hub.log").read_text(errors="replace")
    assert "Culling server" in log or "culling" in log.lower(), "the culler did not say it stopped the server"
    print(
        f"{STUDENT}: server and kernel stopped {stopped_after:.0f} s after the last request (culler timeout {IDLE_S} s)"
    )
