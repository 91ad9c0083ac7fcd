"""Install, start and stop the class JupyterHub (run as root): ``python3 deploy/jupyterhub/hubctl.py COMMAND``.

    install                     course environment (venv from a Python every user can run), JupyterHub,
                                configurable-http-proxy (npm), Jupyter settings for students
    users --create-demo-users   an instructor and three students as local Unix users (passwords printed)
    courses FILE                several courses on one hub: check the course file (courses.py), make each
                                course's grader account and course folder; then start --courses FILE
    instructor NAME             give an existing user the instructor's tools and a course folder ~NAME/course
    remove-demo-users           delete the users ``users`` created (and only those)
    start [--port 8000] [--courses FILE]
                                start the hub on 127.0.0.1 in the background; print the URL and log-ins
    stop                        stop the hub (by its process id) and every server it started
    status                      is it running, where

Everything goes under ``--prefix`` (default ``/opt/hpml-hub``); ``make hub`` runs install, users and
start. docs/running-a-class.md explains a real deployment (systemd, TLS, real users).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

try:
    from .. import ports
    from . import courses as course_file
except ImportError:  # run as a script: python3 deploy/jupyterhub/hubctl.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # deploy/, for ports.py
    import courses as course_file  # type: ignore[no-redef]
    import ports  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_PREFIX = Path("/opt/hpml-hub")
DEFAULT_EXCHANGE = Path("/srv/nbgrader/exchange")
DEMO_MARK = "HPML demo user"  # the GECOS field of users this script creates; only those are ever removed
GRADER_MARK = "HPML course grader"  # the GECOS field of the grader accounts it creates (a hub of several courses)
DEMO_INSTRUCTOR = "instructor"
DEMO_STUDENTS = ("student1", "student2", "student3")
# nbgrader tools that only the instructor sees; students keep Assignments and Validate
INSTRUCTOR_LAB_PLUGINS = ("formgrader", "create-assignment", "course-list")
INSTRUCTOR_SERVER_EXTENSIONS = ("formgrader", "course_list")


def say(message: str) -> None:
    print(f"[hub] {message}", flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, **kw)


def require_root() -> None:
    if os.geteuid() != 0:
        raise SystemExit("hubctl: run as root (the hub logs users in with PAM and starts their servers as them)")


def base_python() -> str:
    """A Python that every user can execute (a venv of root's own pyenv Python would not run for them)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(candidate, os.X_OK) and os.stat(candidate).st_mode & 0o001:
            return candidate
    raise SystemExit("hubctl: no world-executable python3 in /usr/bin or /usr/local/bin (apt-get install python3-venv)")


# --------------------------------------------------------------------------- install


def install(prefix: Path) -> None:
    """The course environment, JupyterHub and the proxy under ``prefix`` (skipped when already there)."""
    require_root()
    venv, proxy = prefix / "venv", prefix / "proxy"
    prefix.mkdir(parents=True, exist_ok=True)
    os.chmod(prefix, 0o755)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if not (venv / "bin" / "jupyterhub-singleuser").exists():
        say(f"building the course environment in {venv} (about a minute)")
        run([base_python(), "-m", "venv", str(venv)])
        constraints = ["-c", str(REPO / "requirements" / "constraints-cpu.txt")]
        run([*pip, *constraints, "torch"])
        run([*pip, *constraints, str(REPO), "jupyterhub>=5,<7"])
        kernel = ["--sys-prefix", "--name", "hpml", "--display-name", "Python 3 (HPML)"]
        run([str(venv / "bin" / "python"), "-m", "ipykernel", "install", *kernel], stdout=subprocess.DEVNULL)
    else:  # the course package as this checkout has it now (its dependencies are there already)
        run([*pip, "--no-deps", "--force-reinstall", str(REPO)], stdout=subprocess.DEVNULL)
    if not list((venv / "lib").glob("python3*/site-packages/jupyterhub_idle_culler")):
        say("installing jupyterhub-idle-culler (stops idle servers, with their kernels)")
        run([*pip, "jupyterhub-idle-culler>=1.4,<3"])
    if not (proxy / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        if shutil.which("npm") is None:
            raise SystemExit("hubctl: npm not found (apt-get install nodejs npm)")
        say("installing configurable-http-proxy with npm")
        proxy.mkdir(exist_ok=True)
        run(
            [
                "npm",
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(proxy),
                "configurable-http-proxy@5",
            ],
            stdout=subprocess.DEVNULL,
        )
    write_student_settings(venv)
    write_nbgrader_settings(venv)
    make_exchange(DEFAULT_EXCHANGE)
    state = prefix / "state"
    state.mkdir(exist_ok=True)
    os.chmod(state, 0o700)
    say(f"installed in {prefix}")


NBGRADER_SETTINGS = """\
# nbgrader settings of every user of the class hub (written by deploy/jupyterhub/hubctl.py install)
import os

c = get_config()  # noqa: F821
# the exchange: made by root (hubctl.py install); $HPML_EXCHANGE points a test class elsewhere
c.Exchange.root = os.environ.get("HPML_EXCHANGE", "{exchange}")
# what Submit leaves out: nbgrader's defaults and lab11's C++ builds (megabytes of .so files, rebuilt when graded)
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "torch_extensions"]
if os.environ.get("HPML_HUB_COURSES"):
    # a hub of several courses (deploy/jupyterhub/courses.py): a user's courses are their JupyterHub groups
    # (nbgrader-<course>, formgrade-<course>), and a course's labs are fetched to ~/<course>/<lab>
    from nbgrader.auth import JupyterHubAuthPlugin

    c.Authenticator.plugin_class = JupyterHubAuthPlugin
    c.Exchange.path_includes_course = True
else:
    c.CourseDirectory.course_id = "hpml"
"""


def write_nbgrader_settings(venv: Path, exchange: Path | None = None) -> None:
    """Course id and exchange for nbgrader's Assignments tab, Validate and its command line, for every user."""
    etc = venv / "etc" / "jupyter"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "nbgrader_config.py").write_text(NBGRADER_SETTINGS.format(exchange=exchange or DEFAULT_EXCHANGE))


def make_exchange(root: Path) -> Path:
    """nbgrader's exchange folder: made by root, every user may create entries in it (mode 0777, as nbgrader wants)."""
    require_root()
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o777)
    for parent in root.parents:  # every user must be able to reach it
        mode = os.stat(parent).st_mode
        if not mode & 0o001:
            raise SystemExit(f"hubctl: {parent} is closed to other users: put the exchange where all can reach it")
    return root


def _write_nbgrader_tools(config_dir: Path, server_file: str, on: bool) -> None:
    """Jupyter settings in ``config_dir`` that turn nbgrader's instructor tools on or off (lab plug-ins, server)."""
    (config_dir / server_file).parent.mkdir(parents=True, exist_ok=True)
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    page = {"disabledExtensions": {f"@jupyter/nbgrader:{p}": not on for p in INSTRUCTOR_LAB_PLUGINS}}
    (config_dir / "labconfig" / "page_config.json").write_text(json.dumps(page, indent=2) + "\n")
    server = {
        "ServerApp": {
            "jpserver_extensions": {f"nbgrader.server_extensions.{e}": on for e in INSTRUCTOR_SERVER_EXTENSIONS}
        }
    }
    (config_dir / server_file).write_text(json.dumps(server, indent=2) + "\n")


def write_student_settings(venv: Path) -> None:
    """Every user's defaults: nbgrader's instructor tools off (the instructor turns them on in their own config).

    Also JupyterLab's "get notified about Jupyter news?" pop-up off: a class hub
    need not ask every student, and it may have no way out to the internet.
    """
    _write_nbgrader_tools(venv / "etc" / "jupyter", "jupyter_server_config.d/zz_hpml_students.json", on=False)
    settings = venv / "share" / "jupyter" / "lab" / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    news = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}
    (settings / "overrides.json").write_text(json.dumps(news, indent=2) + "\n")


INSTRUCTOR_NBGRADER_SETTINGS = """\
# the instructor's nbgrader settings (written by deploy/jupyterhub/hubctl.py)
c = get_config()  # noqa: F821
c.CourseDirectory.root = "{course}"
"""


def write_instructor_settings(user: str, course_id: str | None = None) -> Path:
    """The instructor's own Jupyter settings and course folder; return the course folder.

    Formgrader and Create Assignment on; nbgrader's course folder (``release/``,
    ``submitted/``, ``feedback/``, the gradebook), with every lab's release from
    ``labs/`` in ``release/<lab>/``, ready for ``nbgrader release_assignment <lab>``.
    Releases already there are kept. The folder is ``~user/course``, or for a
    course of a hub of several (a grader account, ``course_id`` given) ``~user/<course_id>``.
    """
    home = Path(os.path.expanduser(f"~{user}"))
    jupyter, course = home / ".jupyter", home / (course_id or "course")
    _write_nbgrader_tools(jupyter, "jupyter_server_config.json", on=True)
    settings = INSTRUCTOR_NBGRADER_SETTINGS.format(course=course)
    if course_id:
        settings += f'c.CourseDirectory.course_id = "{course_id}"\n'
    (jupyter / "nbgrader_config.py").write_text(settings)
    for lab in sorted(p for p in (REPO / "labs").iterdir() if p.is_dir()):
        if not (course / "release" / lab.name).exists():
            shutil.copytree(lab, course / "release" / lab.name)
    run(["chown", "-R", f"{user}:", str(jupyter), str(course)])
    return course


# --------------------------------------------------------------------------- demo users


def _gecos(name: str) -> str | None:
    """The comment field of local user ``name``, or None when there is no such user."""
    import pwd

    try:
        return pwd.getpwnam(name).pw_gecos
    except KeyError:
        return None


def create_demo_users(prefix: Path, instructor: str = DEMO_INSTRUCTOR, students=DEMO_STUDENTS) -> dict[str, str]:
    """Local users with random passwords; {name: password}, also written to ``state/demo-users.json`` (root only)."""
    require_root()
    passwords = {}
    for name in (instructor, *students):
        gecos = _gecos(name)
        if gecos is not None and gecos != DEMO_MARK:
            raise SystemExit(f"hubctl: a user {name!r} already exists and was not made by hubctl: not touching it")
        if gecos is None:
            # a home only its owner can read: Debian's default (0755) would show one student's work to all
            run(
                [
                    "useradd",
                    "--create-home",
                    "--key",
                    "HOME_MODE=0700",
                    "--shell",
                    "/bin/bash",
                    "--comment",
                    DEMO_MARK,
                    name,
                ]
            )
        passwords[name] = secrets.token_urlsafe(9)
        run(["chpasswd"], input=f"{name}:{passwords[name]}\n", text=True)
    write_instructor_settings(instructor)
    state = prefix / "state"
    state.mkdir(parents=True, exist_ok=True)
    record = {"instructor": instructor, "students": list(students), "passwords": passwords}
    (state / "demo-users.json").write_text(json.dumps(record, indent=2) + "\n")
    os.chmod(state / "demo-users.json", 0o600)
    return passwords


def remove_demo_users(prefix: Path) -> list[str]:
    require_root()
    record = prefix / "state" / "demo-users.json"
    names = []
    if record.exists():
        data = json.loads(record.read_text())
        names = [data["instructor"], *data["students"]]
    removed = []
    for name in names:
        if _gecos(name) == DEMO_MARK:
            subprocess.run(["pkill", "-KILL", "-u", name], check=False)  # their servers and kernels
            run(["userdel", "--remove", name], stderr=subprocess.DEVNULL)
            removed.append(name)
    record.unlink(missing_ok=True)
    return removed


# --------------------------------------------------------------------------- several courses


def prepare_courses(courses_file: Path) -> list[course_file.Course]:
    """Check a course file (courses.py) and give each course its grader account and course folder.

    The account ``grader-<course>`` runs the course's formgrader as a hub service and owns the course folder
    ``~grader-<course>/<course>`` (the labs' releases in it, the gradebook, the collected hand-ins) and the
    course's hand-ins in the exchange; its home is private, its password locked. Accounts already there (made
    here) are kept, with their course folders.
    """
    require_root()
    try:
        courses = course_file.read_courses(courses_file)
    except course_file.CourseFileError as exc:
        raise SystemExit(f"hubctl: {exc}") from None
    for course in courses:
        account = course.grader_account
        gecos = _gecos(account)
        if gecos is not None and gecos != GRADER_MARK:
            raise SystemExit(f"hubctl: a user {account!r} already exists and was not made by hubctl: not touching it")
        if gecos is None:
            useradd = ["useradd", "--create-home", "--key", "HOME_MODE=0700", "--shell", "/bin/bash"]
            run([*useradd, "--comment", GRADER_MARK, account])
        write_instructor_settings(account, course.id)
    return courses


def remove_grader_accounts(courses: list[course_file.Course]) -> list[str]:
    """Delete the grader accounts of ``courses`` that :func:`prepare_courses` made, with their course folders."""
    require_root()
    removed = []
    for course in courses:
        if _gecos(course.grader_account) == GRADER_MARK:
            subprocess.run(["pkill", "-KILL", "-u", course.grader_account], check=False)  # its formgrader
            run(["userdel", "--remove", course.grader_account], stderr=subprocess.DEVNULL)
            removed.append(course.grader_account)
    return removed


# --------------------------------------------------------------------------- start and stop


def _pid(prefix: Path) -> int | None:
    pid_file = prefix / "state" / "hub.pid"
    try:
        pid = int(pid_file.read_text())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def start(
    prefix: Path,
    port: int,
    users: list[str],
    admins: list[str],
    timeout: float = 60.0,
    cull_idle_s: int | None = None,
    courses: Path | None = None,
    exchange: Path | None = None,
) -> str:
    """Start JupyterHub in the background (its own session); return its URL once it answers.

    ``cull_idle_s``: stop servers idle that long (default: the configuration's hour; 0: never). ``courses``: a
    course file (courses.py, prepared by :func:`prepare_courses`): a hub of several courses, whose people are
    its users (``users`` and ``admins`` are added to them). ``exchange``: another exchange than the default.
    """
    require_root()
    if _pid(prefix):
        raise SystemExit(f"hubctl: the hub is already running (pid {_pid(prefix)}); hubctl.py stop first")
    state = prefix / "state"
    url = f"http://127.0.0.1:{port}"
    # the hub's API and the proxy's, on ports nothing else holds and distinct from the public one
    api_port, proxy_api_port = ports.free_ports(2, avoid=frozenset({port}))
    env = dict(
        os.environ,
        HPML_HUB_PREFIX=str(prefix),
        HPML_HUB_URL=url,
        HPML_HUB_API_PORT=str(api_port),
        HPML_HUB_PROXY_API_PORT=str(proxy_api_port),
        HPML_HUB_USERS=",".join(users),
        HPML_HUB_ADMINS=",".join(admins),
        PATH=f"{prefix / 'venv' / 'bin'}:{os.environ.get('PATH', '')}",
    )
    if cull_idle_s is not None:
        env["HPML_HUB_CULL_IDLE_S"] = str(cull_idle_s)
    if courses is not None:
        env["HPML_HUB_COURSES"] = str(courses.resolve())
    if exchange is not None:
        env["HPML_EXCHANGE"] = str(exchange)
    log = open(state / "hub.log", "ab")  # left open: the hub writes to it after this function returns
    hub = subprocess.Popen(
        [str(prefix / "venv" / "bin" / "jupyterhub"), "-f", str(HERE / "jupyterhub_config.py")],
        cwd=state,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    (state / "hub.pid").write_text(str(hub.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            _kill_leftovers(prefix, hub.pid)
            raise SystemExit(f"hubctl: the hub exited (code {hub.returncode}); see {state / 'hub.log'}")
        try:
            with urllib.request.urlopen(f"{url}/hub/api/", timeout=2) as r:
                if r.status == 200:
                    return url
        except OSError:
            time.sleep(0.3)
    stop(prefix)
    raise SystemExit(f"hubctl: the hub did not answer within {timeout:.0f} s; see {state / 'hub.log'}")


def stop(prefix: Path, timeout: float = 20.0) -> bool:
    """Stop the hub started by :func:`start`: SIGTERM to its process group, SIGKILL after ``timeout`` to what is
    left of it and of the servers it spawned; returns once they are gone."""
    pid = _pid(prefix)
    if pid is None:
        return False
    users_servers = _spawned_pids(pid)
    os.killpg(pid, signal.SIGTERM)
    _wait_until_gone([pid], pid, timeout, every_s=0.2)
    left = [p for p in [pid, *users_servers] if _alive(p)]
    for p in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    # a SIGKILL takes effect a moment later: return once nothing is left (a busy machine can take a while)
    _wait_until_gone(left, pid, 10.0, every_s=0.05)
    (prefix / "state" / "hub.pid").unlink(missing_ok=True)
    return True


def _wait_until_gone(pids: list[int], hub_pid: int, timeout: float, every_s: float) -> None:
    """Wait until none of ``pids`` is alive, at most ``timeout`` seconds, reaping the hub when this process
    started it (a zombie would otherwise stay)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(hub_pid, os.WNOHANG)
        time.sleep(every_s)


def _kill_leftovers(prefix: Path, hub_pid: int) -> None:
    """After a failed start: the proxy a dead hub may leave behind (its pid file), and the hub's process group."""
    state = prefix / "state"
    with contextlib.suppress(OSError, ValueError):
        os.kill(int((state / "proxy.pid").read_text()), signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.killpg(hub_pid, signal.SIGKILL)
    (state / "hub.pid").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _spawned_pids(hub_pid: int) -> list[int]:
    """Every descendant of the hub (the proxy, each user's server), found through /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [hub_pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hubctl.py", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, default=DEFAULT_PREFIX, help=f"install folder ({DEFAULT_PREFIX})")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("install")
    p = sub.add_parser("users")
    p.add_argument("--create-demo-users", action="store_true", help="really create them (local Unix accounts)")
    p = sub.add_parser("instructor")
    p.add_argument("name", help="an existing local user")
    sub.add_parser("remove-demo-users")
    p = sub.add_parser("courses")
    p.add_argument("file", type=Path, help="a course file (deploy/jupyterhub/courses.py says what it holds)")
    p = sub.add_parser("start")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--courses", type=Path, help="a course file: a hub of several courses (run `courses FILE` first)")
    sub.add_parser("stop")
    sub.add_parser("status")
    args = parser.parse_args(argv)
    prefix = args.prefix
    if args.command == "install":
        install(prefix)
    elif args.command == "users":
        if not args.create_demo_users:
            raise SystemExit(
                f"hubctl: this creates the local users {DEMO_INSTRUCTOR}, {', '.join(DEMO_STUDENTS)} with "
                "random passwords; say --create-demo-users (make hub DEMO_USERS=yes) to do it"
            )
        for name, password in create_demo_users(prefix).items():
            say(f"user {name:<10} password {password}")
    elif args.command == "instructor":
        require_root()
        if _gecos(args.name) is None:
            raise SystemExit(f"hubctl: no local user {args.name!r} (create it first, e.g. adduser {args.name})")
        course = write_instructor_settings(args.name)
        say(f"{args.name}: Formgrader and Create Assignment on; course folder {course} (releases of labs/ in it)")
    elif args.command == "remove-demo-users":
        say("removed: " + (", ".join(remove_demo_users(prefix)) or "nothing"))
    elif args.command == "courses":
        for course in prepare_courses(args.file):
            say(
                f"course {course.id}: formgrader /services/{course.id}/formgrader for {', '.join(course.staff)}, run "
                f"as {course.grader_account} (course folder ~{course.grader_account}/{course.id}); "
                f"{len(course.students)} student(s)"
            )
    elif args.command == "start":
        record = prefix / "state" / "demo-users.json"
        data = json.loads(record.read_text()) if record.exists() else {"instructor": "", "students": []}
        admins = [data["instructor"]] if data["instructor"] and not args.courses else []
        if args.courses:
            prepare_courses(args.courses)  # checks the file and the users again: they may have changed
        url = start(prefix, args.port, data["students"], admins, courses=args.courses)
        say(f"JupyterHub at {url} (log: {prefix / 'state' / 'hub.log'}; stop: python3 {__file__} stop)")
        for name, password in data.get("passwords", {}).items():
            say(f"log in as {name:<10} password {password}")
        if data["instructor"]:
            # inside JupyterLab the Formgrader is an iframe, which JupyterHub forbids (blank: nbgrader issue 1870)
            say(f"the instructor's Formgrader, in a tab of its own: {url}/user/{data['instructor']}/formgrader")
    elif args.command == "stop":
        say("stopped" if stop(prefix) else "not running")
    elif args.command == "status":
        pid = _pid(prefix)
        say(f"running (pid {pid})" if pid else "not running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
