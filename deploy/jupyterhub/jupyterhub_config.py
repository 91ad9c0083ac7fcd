# JupyterHub for an HPML class: PAM login with local Unix users, each user's server run as that user.
#
# Started by deploy/jupyterhub/hubctl.py, which sets the HPML_HUB_* variables below; on a real server,
# set them in the systemd unit (docs/running-a-class.md). Everything lives under HPML_HUB_PREFIX:
#   venv/    the course environment every user runs (built from a Python that other users can execute)
#   proxy/   configurable-http-proxy from npm
#   state/   the hub's database, cookie secret, proxy token and log (root only)
import importlib.util
import os
import pwd
import sys
import urllib.parse
from pathlib import Path

c = get_config()  # noqa: F821 (injected by traitlets' config loader)


def _load_beside(name: str, file: str):
    """Load a module of deploy/ by its path (this file is read by traitlets, not imported from a package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(__file__), file))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


prefix = os.environ.get("HPML_HUB_PREFIX", "/opt/hpml-hub")
state = os.path.join(prefix, "state")
users = {u for u in os.environ.get("HPML_HUB_USERS", "").split(",") if u}
admins = {u for u in os.environ.get("HPML_HUB_ADMINS", "").split(",") if u}

c.JupyterHub.bind_url = os.environ.get("HPML_HUB_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_bind_url = "http://127.0.0.1:" + os.environ.get("HPML_HUB_API_PORT", "8081")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")

# PAM: the users and passwords of this machine. JupyterHub 5+ lets nobody in unless allowed.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = users | admins
c.Authenticator.admin_users = admins

# each user's single-user server runs as that Unix user, from the shared course environment
c.JupyterHub.spawner_class = "localprocess"
# the real path: users must reach it even when the prefix itself is a folder only root can enter
c.Spawner.cmd = [os.path.realpath(os.path.join(prefix, "venv", "bin", "jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120  # a cold start on 2 cores imports JupyterLab and nbgrader's extensions
c.Spawner.http_timeout = 120
c.Spawner.environment = {"HPML_FAST": os.environ.get("HPML_FAST", "")}
if os.environ.get("HPML_EXCHANGE"):  # another exchange than the one in the environment's nbgrader_config.py
    c.Spawner.environment["HPML_EXCHANGE"] = os.environ["HPML_EXCHANGE"]

c.ConfigurableHTTPProxy.command = [
    os.path.realpath(os.path.join(prefix, "proxy", "node_modules", ".bin", "configurable-http-proxy"))
]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:" + os.environ.get("HPML_HUB_PROXY_API_PORT", "8002")
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "proxy.pid")

# started and stopped with the hub, as root: hands each finished submission in nbgrader's inbound to the
# instructor (mode 0700), where nbgrader leaves it readable and writable by every user (inbound_guard.py)
c.JupyterHub.services = [
    {
        "name": "inbound-guard",
        "command": [
            os.path.realpath(os.path.join(prefix, "venv", "bin", "python3")),
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "inbound_guard.py"),
            os.environ.get("HPML_EXCHANGE", "/srv/nbgrader/exchange"),
        ],
    }
]

# jupyterhub-idle-culler (installed by hubctl.py): stops a server idle for HPML_HUB_CULL_IDLE_S seconds (default an
# hour; 0 never), and with it its kernels. Idle: no request through the proxy and no kernel activity reported.
# LocalProcessSpawner enforces no memory or CPU limit per user (mem_limit and cpu_limit only set environment
# variables); see docs/running-a-class.md
roles = []
cull_idle_s = int(os.environ.get("HPML_HUB_CULL_IDLE_S", "3600"))
if cull_idle_s > 0:
    roles.append(
        {
            "name": "idle-culler",
            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
            "services": ["idle-culler"],
        }
    )
    c.JupyterHub.services.append(
        {
            "name": "idle-culler",
            "command": [
                # the environment's python by its folder's real path (the binary itself links out of the venv)
                os.path.join(os.path.realpath(os.path.join(prefix, "venv")), "bin", "python3"),
                "-m",
                "jupyterhub_idle_culler",
                f"--timeout={cull_idle_s}",
                f"--cull-every={max(5, min(300, cull_idle_s // 4))}",
            ],
        }
    )

# Several courses on one hub (HPML_HUB_COURSES: a course file, deploy/jupyterhub/courses.py), as nbgrader documents
# it: each course's formgrader is a service run as the course's grader account (hubctl.py prepare_courses), at
# /services/<course>/formgrader, open to the group formgrade-<course> (its instructors and graders) and nobody
# else; its students are the group nbgrader-<course>, which nbgrader's JupyterHubAuthPlugin reads to list a
# student's courses (every token may read its own user's name and groups: JupyterHub's identify scopes).
courses_file = os.environ.get("HPML_HUB_COURSES")
if courses_file:
    course_file = _load_beside("hpml_courses", "courses.py")
    courses = course_file.read_courses(Path(courses_file))
    # the grader accounts are users of the hub too, in their course's formgrade group, without a password to log in
    grader_accounts = {course.grader_account for course in courses}
    c.Authenticator.allowed_users = set(course_file.everyone(courses)) | grader_accounts | users | admins
    c.Authenticator.admin_users = admins  # an admin may open every course's formgrader: none unless asked
    c.Spawner.environment["HPML_HUB_COURSES"] = courses_file  # nbgrader_config.py: JupyterHubAuthPlugin
    c.JupyterHub.load_groups = {}
    # a free port for each course's formgrader, none of the hub's or the proxy's
    ports = _load_beside("hpml_ports", os.path.join("..", "ports.py"))
    hub_urls = (c.JupyterHub.bind_url, c.JupyterHub.hub_bind_url, c.ConfigurableHTTPProxy.api_url)
    hub_ports = frozenset(urllib.parse.urlsplit(url).port for url in hub_urls)
    free = ports.free_ports(len(courses), avoid=hub_ports)
    formgrader_ports = {course.id: port for course, port in zip(courses, free)}
    for course in courses:
        staff, students = f"formgrade-{course.id}", f"nbgrader-{course.id}"
        c.JupyterHub.load_groups[staff] = {"users": [*course.staff, course.grader_account]}
        c.JupyterHub.load_groups[students] = {"users": list(course.students)}
        roles.append({"name": staff, "groups": [staff], "scopes": [f"access:services!service={course.id}"]})
        # the formgrader's own token: nbgrader's JupyterHubAuthPlugin reads its course's people and their groups,
        # and adds and removes students in nbgrader-<course> (the formgrader's Manage Students); nothing more
        roles.append(
            {
                "name": f"formgrader-{course.id}",
                "services": [course.id],
                "scopes": [
                    f"read:users!group={staff}",
                    f"read:users!group={students}",
                    f"list:groups!group={students}",
                    f"groups!group={students}",
                ],
            }
        )
        port = formgrader_ports[course.id]
        account = pwd.getpwnam(course.grader_account)
        c.JupyterHub.services.append(
            {
                "name": course.id,
                "url": f"http://127.0.0.1:{port}",
                "command": c.Spawner.cmd,
                "user": course.grader_account,
                "cwd": account.pw_dir,
                "environment": {
                    "JUPYTERHUB_DEFAULT_URL": "/formgrader",
                    "HPML_HUB_COURSES": courses_file,
                    **{k: v for k, v in c.Spawner.environment.items() if k == "HPML_EXCHANGE"},
                },
                "oauth_no_confirm": True,
            }
        )
c.JupyterHub.load_roles = roles
