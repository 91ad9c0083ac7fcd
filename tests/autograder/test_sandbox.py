"""Isolation and limits of the grading kernel: autograder.limits, .kernel_launcher, .sandbox.

Fast tests check the pieces (limits, the bwrap command line, the scratch
folder, the launcher's rlimits on a plain Python child). Slow tests start real
kernels through nbclient (and nbgrader's ``Execute``) with
:class:`SandboxedKernelManager`, once per isolation level: "limits only"
always, "bubblewrap" when it works here (``apt-get install bubblewrap``).
Every probe is bounded by itself (at most 200 forks, allocations of untouched
memory, 2 MiB files), so a broken sandbox fails a test without hurting the
machine. Only 127.0.0.1 is ever contacted, on a port this test listens on.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.isolation import kernel_launcher, processes, sandbox
from autograder.isolation.sandbox import BUBBLEWRAP, LIMITS_ONLY
from autograder.lab_settings import all_labs, limits_for
from autograder.limits import ENV_VAR, Limits

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "lab01_benchmarking" / "lab01_benchmarking.ipynb"
TEST_LIMITS = Limits(
    cell_timeout_s=60, notebook_timeout_s=120, memory_mb=1536, max_processes=48, max_file_bytes=1 << 20, shm_mb=8
)


def _host_address() -> str | None:
    """This machine's address on its first non-loopback interface (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            ip = s.getsockname()[0]
        except OSError:
            return None
    return None if ip.startswith("127.") else ip


def bwrap_works() -> bool:
    return sandbox._probe_bwrap()[0] == BUBBLEWRAP


# --------------------------------------------------------------------------- limits


def test_limits_defaults_and_json_round_trip():
    lim = Limits()
    assert (
        lim.cell_timeout_s,
        lim.notebook_timeout_s,
        lim.memory_mb,
        lim.max_processes,
        lim.max_output_bytes,
        lim.max_file_bytes,
        lim.shm_mb,
    ) == (120, 900, 4096, 256, 2_000_000, 100 << 20, 512)
    assert Limits.from_json(TEST_LIMITS.to_json()) == TEST_LIMITS
    env = TEST_LIMITS.to_env({})
    assert Limits.from_env(env) == TEST_LIMITS and ENV_VAR in env
    assert Limits.from_env({}) == Limits()


def test_limits_reject_typos_and_nonsense():
    with pytest.raises(ValueError, match="memory_gb"):
        Limits.from_json('{"memory_gb": 4}')
    with pytest.raises(ValueError):
        Limits(memory_mb=0)
    with pytest.raises(ValueError):
        Limits(max_processes=True)


def test_limits_for_applies_the_lab_override_only_to_that_lab():
    with_overrides = [lab for lab in all_labs() if lab.limit_overrides]
    assert with_overrides, "some lab's lab.toml sets [limits]"
    for lab in with_overrides:
        got = limits_for(lab.name, env={})
        assert all(getattr(got, key) == value for key, value in lab.limit_overrides.items())
        others = {k: v for k, v in vars(got).items() if k not in lab.limit_overrides}
        assert others == {k: v for k, v in vars(Limits()).items() if k not in lab.limit_overrides}


# --------------------------------------------------------------------------- bwrap command line


def test_bwrap_argv_hides_then_reveals_then_binds_scratch(tmp_path):
    repo, venv, pkg, work, home, py = (
        tmp_path / n for n in ("repo", "repo/.venv", "repo/pkg", "repo/pkg/work", "home", "home/python")
    )
    scratch, runtime = tmp_path / "scratch", tmp_path / "run"
    for d in (repo, venv, pkg, work, home, py, scratch, runtime):
        d.mkdir(parents=True, exist_ok=True)
    argv = kernel_launcher.bwrap_argv(
        ["python", "-m", "ipykernel_launcher"],
        scratch=str(scratch),
        runtime_dir=str(runtime),
        hide=[str(repo), str(work), str(home)],
        reveal=[str(venv), str(pkg), str(py), str(repo), "/usr"],
    )
    sep = argv.index("--")
    assert argv[sep + 1 :] == ["python", "-m", "ipykernel_launcher"]
    opts = argv[:sep]

    def pos(*triple):
        for i in range(len(opts) - len(triple) + 1):
            if tuple(opts[i : i + len(triple)]) == triple:
                return i
        raise AssertionError(f"{triple} not in {opts}")

    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"):
        assert flag in opts
    assert pos("--cap-drop", "ALL") >= 0
    assert pos("--ro-bind", "/", "/") < pos("--tmpfs", str(repo)) < pos("--ro-bind", str(venv), str(venv))
    assert pos("--tmpfs", str(home)) < pos("--ro-bind", str(py), str(py))
    # the grading folder inside a revealed package is hidden again, after the reveal
    assert opts.count(str(work)) >= 2
    assert max(i for i, o in enumerate(opts) if o == str(work)) > pos("--ro-bind", str(pkg), str(pkg))
    # a hidden folder is never revealed, and folders visible anyway are not re-bound
    assert ("--ro-bind", str(repo), str(repo)) not in zip(opts, opts[1:], opts[2:])
    assert "/usr" not in opts
    assert pos("--bind", str(scratch), str(scratch)) > pos("--ro-bind", str(venv), str(venv))
    assert pos("--bind", str(runtime), str(runtime)) >= 0
    assert opts[opts.index("--chdir") + 1] == str(scratch)


def test_hidden_and_revealed_paths_cover_repo_grading_folder_and_python(monkeypatch, tmp_path):
    monkeypatch.setenv("HPML_GRADING_DIR", str(tmp_path / "grading"))
    monkeypatch.setenv(sandbox.HIDE_ENV, str(tmp_path / "subs"))
    hidden = sandbox.hidden_paths()
    for p in (ROOT, ROOT / "solutions", tmp_path / "grading", tmp_path / "subs", Path.home()):
        assert str(p) in hidden
    revealed = sandbox.revealed_paths([sys.executable])
    assert sys.prefix in revealed
    import hpml_lab_utils

    assert str(Path(hpml_lab_utils.__file__).parent) in revealed
    assert not any(Path(r).resolve() in (ROOT, ROOT / "solutions") for r in revealed)


# --------------------------------------------------------------------------- scratch folder


def _submission(tmp_path: Path) -> Path:
    sub = tmp_path / "submitted" / "s1" / "lab01_benchmarking"
    (sub / "data").mkdir(parents=True)
    (sub / "lab01_benchmarking.ipynb").write_text("{}")
    (sub / "data" / "mine.csv").write_text("1,2\n")
    (sub / ".ipynb_checkpoints").mkdir()
    (sub / ".ipynb_checkpoints" / "old.ipynb").write_text("{}")
    (tmp_path / "gradebook.db").write_text("secret")
    (sub / "link_to_gradebook").symlink_to(tmp_path / "gradebook.db")
    return sub


def test_prepare_scratch_copies_only_the_students_own_files(tmp_path):
    sub = _submission(tmp_path)
    scratch = tmp_path / "scratch" / "s1"
    scratch.mkdir(parents=True)
    (scratch / "left_over_from_someone_else.txt").write_text("x")
    extra = tmp_path / "support.txt"
    extra.write_text("lab data")
    got = sandbox.prepare_scratch(sub, scratch, extra_files=[extra])
    files = sorted(str(p.relative_to(got)) for p in got.rglob("*") if p.is_file())
    assert files == ["data/mine.csv", "lab01_benchmarking.ipynb", "support.txt"]
    assert not any(p.is_symlink() for p in got.rglob("*"))


def test_prepare_scratch_refuses_a_scratch_that_contains_the_submission(tmp_path):
    sub = _submission(tmp_path)
    with pytest.raises(ValueError):
        sandbox.prepare_scratch(sub, tmp_path / "submitted")
    assert (sub / "lab01_benchmarking.ipynb").exists()


# --------------------------------------------------------------------------- isolation level


def test_describe_isolation_says_what_holds(monkeypatch):
    monkeypatch.setenv(sandbox.ISOLATION_ENV, "limits")
    assert sandbox.isolation_level() == LIMITS_ONLY
    line = sandbox.describe_isolation()
    assert line.startswith("isolation: limits only") and "can read files the grader can read" in line
    monkeypatch.delenv(sandbox.ISOLATION_ENV)
    if bwrap_works():
        shm = "/dev/shm sized by shm_mb" if sandbox.bwrap_sizes_shm() else "/dev/shm unsized: bubblewrap older than 0.8"
        assert sandbox.describe_isolation() == (
            "isolation: bubblewrap (no network but its own loopback, read-only file system, "
            f"only the scratch folder writable, {shm})"
        )


def test_without_bwrap_on_path_it_falls_back_and_says_how_to_install(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv(sandbox.ISOLATION_ENV, raising=False)
    sandbox._probe_bwrap.cache_clear()
    try:
        assert sandbox.isolation_level() == LIMITS_ONLY
        assert "apt-get install bubblewrap" in sandbox.describe_isolation()
        monkeypatch.setenv(sandbox.ISOLATION_ENV, "bubblewrap")
        with pytest.raises(sandbox.SandboxUnavailable):
            sandbox.isolation_level()
    finally:
        sandbox._probe_bwrap.cache_clear()


# --------------------------------------------------------------------------- the launcher on a plain child


def _launch(tmp_path: Path, code: str, limits: Limits = TEST_LIMITS, cgroup: Path | None = None):
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    cmd = (
        [
            sys.executable,
            "-I",
            "-S",
            str(sandbox.LAUNCHER_FILE),
            "--scratch",
            str(scratch),
            "--limits",
            limits.to_json(),
        ]
        + (["--cgroup", str(cgroup)] if cgroup else [])
        + ["--", sys.executable, "-c", textwrap.dedent(code)]
    )
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), scratch


def test_launcher_sets_rlimits_session_and_cwd(tmp_path):
    got, scratch = _launch(
        tmp_path,
        """
        import json, os, resource
        print(json.dumps({"as": resource.getrlimit(resource.RLIMIT_AS)[0],
                          "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
                          "core": resource.getrlimit(resource.RLIMIT_CORE)[0],
                          "cwd": os.getcwd(), "leader": os.getsid(0) == os.getpid()}))
    """,
    )
    assert got == {"as": 1536 << 20, "fsize": 1 << 20, "core": 0, "cwd": str(scratch.resolve()), "leader": True}


def test_launcher_memory_and_file_limits_hold_in_the_child(tmp_path):
    got, scratch = _launch(
        tmp_path,
        """
        import json, mmap
        maps = []
        try:
            for _ in range(64):  # up to 16 GiB of untouched address space
                maps.append(mmap.mmap(-1, 256 << 20))
            mem = "no error"
        except (MemoryError, OSError) as e:
            mem = type(e).__name__
        n = len(maps)
        del maps
        try:
            with open("big.bin", "wb") as f:
                f.write(b"0" * (2 << 20))
            big = None
        except OSError as e:
            big = e.errno
        print(json.dumps({"mem": mem, "mapped_mib": n * 256, "big_errno": big}))
    """,
    )
    assert got["mem"] != "no error" and got["mapped_mib"] < 1536
    assert got["big_errno"] == 27  # EFBIG
    assert (scratch / "big.bin").stat().st_size <= 1 << 20


@pytest.mark.skipif(not processes.process_limit_enforced(), reason="root without a writable pids cgroup")
def test_launcher_bounds_a_fork_bomb(tmp_path):
    cgroup = processes.make_cgroup(TEST_LIMITS.max_processes)
    try:
        got, _ = _launch(tmp_path, FORK_PROBE + "\nprint(json.dumps(fork_probe()))", cgroup=cgroup)
    finally:
        if cgroup is not None:
            processes.kill_cgroup(cgroup)
    assert got["error"] == "BlockingIOError" and got["forked"] < TEST_LIMITS.max_processes


def _ended_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_what_an_ended_workers_kernel_left_is_removed_and_nothing_of_a_live_one(tmp_path, monkeypatch):
    """A worker SIGKILLed at its wall limit (or by scancel) never cleans up after its kernel: its folders in /tmp
    (named after the worker's pid) and its cgroups stay. The next kernel, and the batch at its end, remove them,
    killing what still runs in such a cgroup; what belongs to a live worker stays."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead, alive = _ended_pid(), os.getppid()
    for name in (f"hpml-kernel-{dead}-a1", f"hpml-scratch-{dead}-b2", f"hpml-kernel-{alive}-c3", "hpml-kernel-d4"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kernel.json").write_text("{}")
    root = processes.pids_cgroup_root()
    groups, escaped = {}, None
    if root is not None:
        (root / processes.CGROUP_PARENT).mkdir(exist_ok=True)
        for owner in (dead, alive):
            groups[owner] = root / processes.CGROUP_PARENT / f"kernel-{owner}-{uuid.uuid4().hex[:8]}"
            groups[owner].mkdir()
        escaped = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        (groups[dead] / "cgroup.procs").write_text(str(escaped.pid))  # a process the kernel left running
    try:
        sandbox.remove_leftovers()
        assert sorted(p.name for p in tmp_path.iterdir()) == [f"hpml-kernel-{alive}-c3", "hpml-kernel-d4"]
        if root is not None:
            assert not groups[dead].exists() and groups[alive].is_dir()
            assert escaped.wait(timeout=10) == -9
    finally:
        if escaped is not None and escaped.poll() is None:
            escaped.kill()
        for group in groups.values():
            processes.kill_cgroup(group)
    if root is None:
        pytest.skip("the folders are checked; no writable pids cgroup here for the cgroups")


FORK_PROBE = """
import json, os, time
def fork_probe(n=200):  # bounded: at most 200 children, each killed at once
    pids, err = [], None
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError as e:
            err = type(e).__name__
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        pids.append(pid)
    for p in pids:
        os.kill(p, 9)
        os.waitpid(p, 0)
    return {"forked": len(pids), "error": err}
"""


# --------------------------------------------------------------------------- real kernels


def _notebook(*sources: str) -> nbformat.NotebookNode:
    return new_notebook(
        cells=[new_code_cell(textwrap.dedent(s)) for s in sources],
        metadata={"kernelspec": {"name": "hpml", "display_name": "Python 3 (HPML)", "language": "python"}},
    )


def _results(nb) -> dict:
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out.setdefault("errors", []).append(f"{o['ename']}: {o['evalue']}")
            for line in (o.get("text") or "").splitlines():
                if line.startswith("RESULT "):
                    rec = json.loads(line[7:])
                    out[rec.pop("name")] = rec
    return out


@pytest.fixture(scope="module", params=[LIMITS_ONLY, BUBBLEWRAP])
def probe(request, tmp_path_factory):
    """Run one probe notebook in a sandboxed kernel at the given level; return (level, results, context)."""
    level = request.param
    if level == BUBBLEWRAP and not bwrap_works():
        pytest.skip("bubblewrap not usable here (apt-get install bubblewrap)")
    from nbclient import NotebookClient

    base = tmp_path_factory.mktemp("sandbox-" + level.replace(" ", "-"))
    grading = base / "grading"
    autograded = grading / "autograded" / "s1" / "lab01_benchmarking"
    autograded.mkdir(parents=True)
    (autograded / "lab01_benchmarking.ipynb").write_text("HIDDEN TEST: assert answer == 42")
    (grading / "gradebook.db").write_text("secret gradebook")
    outside = Path("/var/tmp") / f"hpml-sandbox-test-{uuid.uuid4().hex[:8]}"
    (outside / "other_student").mkdir(parents=True)
    (outside / "other_student" / "lab.ipynb").write_text("someone else's answers")
    scratch = sandbox.prepare_scratch(_submission(base), base / "scratch" / "s1")
    home_file = next((p for p in sorted(Path.home().iterdir()) if p.is_file() and os.access(p, os.R_OK)), None)
    secrets = [
        str(SOLUTION),
        str(grading / "gradebook.db"),
        str(autograded / "lab01_benchmarking.ipynb"),
        str(outside / "other_student" / "lab.ipynb"),
    ] + ([str(home_file)] if home_file else [])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    host_ip = _host_address() or "127.0.0.2"  # no other interface: a loopback address the kernel has too
    outward = socket.socket()  # on every address: the kernel aims at the host's own non-loopback address
    outward.bind(("0.0.0.0", 0))
    outward.listen(8)
    outward_port = outward.getsockname()[1]
    nb = _notebook(
        """
        import json, os
        def report(name, **kw):
            print("RESULT " + json.dumps(dict(name=name, **kw)))
        report("cwd", cwd=os.getcwd(), files=sorted(str(p) for p in __import__("pathlib").Path(".").rglob("*")))
        """,
        """
        import numpy as np
        blocks = []
        try:
            for _ in range(64):  # up to 16 GiB, never touched
                blocks.append(np.empty(256 << 20, dtype=np.uint8))
            err = None
        except MemoryError as e:
            err = type(e).__name__
        n = len(blocks)
        del blocks
        report("memory", error=err, got_mib=n * 256)
        """,
        """
        try:
            with open("big.bin", "wb") as f:
                f.write(b"0" * (2 << 20))
            err = None
        except OSError as e:
            err = e.errno
        report("bigfile", errno=err, size=os.path.getsize("big.bin"))
        """,
        FORK_PROBE + "\nreport('fork', **fork_probe())",
        f"""
        res = {{}}
        for p in {secrets!r}:
            try:
                with open(p) as f:
                    f.read(16)
                res[p] = "read"
            except OSError as e:
                res[p] = type(e).__name__
        report("secrets", result=res)
        """,
        f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
            r = "connected"
        except OSError as e:
            r = type(e).__name__
        report("loopback", result=r)
        """,
        f"""
        import socket, threading
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        threading.Thread(target=lambda: server.accept()[0].sendall(b"own"), daemon=True).start()
        with socket.create_connection(server.getsockname(), timeout=3) as c:
            own = c.recv(3).decode()
        try:
            socket.create_connection(({host_ip!r}, {outward_port}), timeout=3).close()
            r = "connected"
        except OSError as e:
            r = type(e).__name__
        report("own_loopback", own=own, host_address=r)
        """,
        f"""
        import errno
        st = os.statvfs("/dev/shm")
        size_mib = st.f_blocks * st.f_frsize / 2**20
        written, err = 0, None
        if size_mib == {TEST_LIMITS.shm_mb}:  # only the sandbox's own: never fill the machine's /dev/shm
            try:
                for i in range(256):
                    with open("/dev/shm/fill%d" % i, "wb") as f:
                        f.write(b"x" * (512 << 10))
                    written += 512 << 10
            except OSError as e:
                err = errno.errorcode[e.errno]
        report("shm", size_mib=size_mib, written=written, error=err)
        """,
        f"""
        res = {{}}
        for p in [{str(outside / "written_by_kernel.txt")!r}, os.path.join(os.getcwd(), "inside.txt")]:
            try:
                with open(p, "w") as f:
                    f.write("x")
                res[p] = "written"
            except OSError as e:
                res[p] = type(e).__name__
        report("write", result=res, grader_visible=os.path.exists("/proc/{os.getpid()}"))
        """,
        "import time\ntime.sleep(30)  # interrupted after 2 s",
        "report('alive', ok=True)",
    )
    report_file = base / "kernels.jsonl"
    env = {
        sandbox.SCRATCH_ENV: str(scratch),
        ENV_VAR: TEST_LIMITS.to_json(),
        sandbox.ISOLATION_ENV: "limits" if level == LIMITS_ONLY else "bubblewrap",
        sandbox.HIDE_ENV: str(outside),
        sandbox.REPORT_ENV: str(report_file),
        "HPML_GRADING_DIR": str(grading),
    }
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        try:
            t0 = time.perf_counter()
            client = NotebookClient(
                nb,
                kernel_manager_class=sandbox.SandboxedKernelManager,
                timeout=60,
                timeout_func=lambda cell: 2 if "time.sleep(30)" in cell.source else 60,
                interrupt_on_timeout=True,
                allow_errors=True,
                resources={"metadata": {"path": str(autograded)}},
            )
            client.execute()
            seconds = time.perf_counter() - t0
        finally:
            listener.close()
            outward.close()
            written = (outside / "written_by_kernel.txt").exists()
            secrets_exist = {p: Path(p).exists() for p in secrets}
            shutil.rmtree(outside, ignore_errors=True)
    ctx = {
        "scratch": scratch,
        "secrets": secrets,
        "secrets_exist": secrets_exist,
        "written_outside": written,
        "seconds": seconds,
        "report": [json.loads(l) for l in report_file.read_text().splitlines()] if report_file.exists() else [],
    }
    return level, _results(nb), ctx


@pytest.mark.slow
def test_kernel_runs_in_the_scratch_folder_with_only_the_students_files(probe):
    level, res, ctx = probe
    assert res["cwd"]["cwd"] == str(ctx["scratch"].resolve())
    assert res["cwd"]["files"] == ["data", "data/mine.csv", "lab01_benchmarking.ipynb"]
    assert res["alive"] == {"ok": True}, res.get("errors")


@pytest.mark.slow
def test_memory_bomb_gets_memory_error_and_the_kernel_lives(probe):
    level, res, _ = probe
    assert res["memory"]["error"] == "MemoryError"
    assert res["memory"]["got_mib"] < TEST_LIMITS.memory_mb
    assert res["alive"] == {"ok": True}


@pytest.mark.slow
def test_cell_timeout_interrupts_the_kernel_which_goes_on(probe):
    """nbgrader interrupts a cell over Execute.timeout; under bubblewrap that must be a message, not a signal."""
    level, res, _ = probe
    assert res.get("errors") == ["KeyboardInterrupt: "]
    assert res["alive"] == {"ok": True}


@pytest.mark.slow
def test_huge_file_fails(probe):
    level, res, ctx = probe
    assert res["bigfile"] == {"errno": 27, "size": TEST_LIMITS.max_file_bytes}


@pytest.mark.slow
def test_fork_bomb_is_bounded(probe):
    level, res, ctx = probe
    if not processes.process_limit_enforced():
        pytest.skip("root without a writable pids cgroup: max_processes is not enforced here")
    assert res["fork"]["error"] == "BlockingIOError"
    assert res["fork"]["forked"] < TEST_LIMITS.max_processes
    assert ctx["report"] and ctx["report"][-1]["pids_max_hit"] >= 1


@pytest.mark.slow
def test_kernel_end_is_reported(probe):
    level, res, ctx = probe
    (rec,) = ctx["report"]
    assert rec["isolation"] == level and rec["killed_for"] is None
    assert rec["limits"]["memory_mb"] == TEST_LIMITS.memory_mb


@pytest.mark.slow
def test_with_bwrap_secrets_network_and_disk_are_out_of_reach(probe):
    level, res, ctx = probe
    if level != BUBBLEWRAP:
        pytest.skip("only bubblewrap hides files and cuts the network")
    for path in ctx["secrets"]:
        assert ctx["secrets_exist"][path]  # it is there for the grader...
        assert res["secrets"]["result"][path] in ("FileNotFoundError", "PermissionError"), path  # ...not the kernel
    assert res["loopback"]["result"] != "connected"
    assert res["own_loopback"]["own"] == "own"  # its own loopback works: Ray's daemons can start
    assert res["own_loopback"]["host_address"] != "connected"  # no route out
    assert not ctx["written_outside"]
    assert list(res["write"]["result"].values()) == ["OSError", "written"]
    assert res["write"]["grader_visible"] is False


@pytest.mark.slow
def test_with_bwrap_dev_shm_is_private_and_holds_shm_mb(probe):
    level, res, ctx = probe
    if level != BUBBLEWRAP or not sandbox.bwrap_sizes_shm():
        pytest.skip("only bubblewrap 0.8 or newer gives the kernel a /dev/shm of its own size")
    shm = res["shm"]
    assert shm["size_mib"] == TEST_LIMITS.shm_mb
    assert shm["error"] == "ENOSPC" and shm["written"] <= TEST_LIMITS.shm_mb << 20
    assert not any(Path("/dev/shm").glob("fill*"))  # the kernel's, gone with it


@pytest.mark.slow
def test_limits_only_is_honest_about_what_it_does_not_stop(probe):
    """The control for the bubblewrap test: without it the same probes do reach (so that test can fail)."""
    level, res, ctx = probe
    if level != LIMITS_ONLY:
        pytest.skip("the limits-only control")
    assert set(res["secrets"]["result"].values()) == {"read"}
    assert res["loopback"]["result"] == "connected"
    assert res["own_loopback"] == {"own": "own", "host_address": "connected"}
    assert ctx["written_outside"]


@pytest.mark.slow
def test_nbgrader_execute_uses_the_sandbox_and_the_scratch_folder(tmp_path, monkeypatch):
    """nbgrader's Execute ignores c.Execute.kernel_manager_class; SandboxedExecute does not, and keeps c.Execute."""
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config

    cfg = Config()
    cfg.Execute.timeout = 33
    cfg.Execute.kernel_manager_class = sandbox.SandboxedKernelManager
    assert Execute(config=cfg).kernel_manager_class is not sandbox.SandboxedKernelManager  # why SandboxedExecute
    scratch = sandbox.prepare_scratch(_submission(tmp_path), tmp_path / "scratch")
    autograded = tmp_path / "autograded"
    autograded.mkdir()
    monkeypatch.setenv(sandbox.SCRATCH_ENV, str(scratch))
    monkeypatch.setenv(ENV_VAR, TEST_LIMITS.to_json())
    monkeypatch.setenv(sandbox.REPORT_ENV, str(tmp_path / "k.jsonl"))
    monkeypatch.setenv("HPML_GRADING_DIR", str(tmp_path / "grading"))
    pp = sandbox.SandboxedExecute(config=cfg)
    assert pp.kernel_manager_class is sandbox.SandboxedKernelManager and pp.timeout == 33
    nb = _notebook("import os; print(os.getcwd())")
    nb, _ = pp.preprocess(nb, {"metadata": {"path": str(autograded)}})
    assert nb.cells[0].outputs[0]["text"].strip() == str(scratch.resolve())
    assert (tmp_path / "k.jsonl").exists()


@pytest.mark.slow
def test_notebook_timeout_and_dead_kernel_are_reported_not_fatal(tmp_path, monkeypatch):
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    report = tmp_path / "k.jsonl"
    monkeypatch.setenv(sandbox.SCRATCH_ENV, str(tmp_path))
    monkeypatch.setenv(sandbox.ISOLATION_ENV, "limits")
    monkeypatch.setenv(ENV_VAR, Limits(notebook_timeout_s=3).to_json())
    monkeypatch.setenv(sandbox.REPORT_ENV, str(report))
    nb = _notebook("import time, signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)")
    t0 = time.perf_counter()
    with pytest.raises(DeadKernelError):
        NotebookClient(nb, kernel_manager_class=sandbox.SandboxedKernelManager, timeout=60).execute()
    assert time.perf_counter() - t0 < 30
    nb = _notebook("import os\nos._exit(3)")
    with pytest.raises(DeadKernelError):
        NotebookClient(nb, kernel_manager_class=sandbox.SandboxedKernelManager, timeout=60).execute()
    first, second = [json.loads(l) for l in report.read_text().splitlines()]
    assert first["killed_for"] == "notebook_timeout"
    assert second["killed_for"] is None and second["exit_code"] == 3


_IMMEDIATE_SHUTDOWN = """
import sys
from nbclient import NotebookClient
import nbformat
from autograder.sample_class import bench_grading
from autograder.isolation import sandbox

bench_grading.become_subreaper()  # as the benchmark does: orphaned sandbox processes are reaped here
nb = nbformat.reads(sys.stdin.read(), as_version=4)
with bench_grading.Clock() as clock:
    NotebookClient(nb, kernel_manager_class=sandbox.SandboxedKernelManager, timeout=60,
                   shutdown_kernel="immediate").execute()
print("CPU", clock.cpu)
"""


@pytest.mark.slow
@pytest.mark.parametrize("level", [LIMITS_ONLY, BUBBLEWRAP])
def test_immediate_shutdown_kills_the_kernel_tree_and_keeps_its_cpu_time(level, tmp_path):
    """Grading kills the kernel after its last cell (``Execute.shutdown_kernel = "immediate"``).

    Nothing the kernel started may survive, and the benchmark's CPU seconds
    must still include the kernel's: under bubblewrap the kernel inside is
    killed first so that bubblewrap reaps it (killing bubblewrap first ends its
    pid namespace, and the kernel's CPU time is lost with it).
    """
    if level == BUBBLEWRAP and not bwrap_works():
        pytest.skip("bubblewrap not usable here (apt-get install bubblewrap)")
    token = f"hpml-orphan-{uuid.uuid4().hex}"
    nb = _notebook(
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {token!r}])",
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0:\n    pass",
    )
    env = dict(
        os.environ,
        **{
            sandbox.SCRATCH_ENV: str(tmp_path),
            sandbox.ISOLATION_ENV: level,
            ENV_VAR: TEST_LIMITS.to_json(),
            sandbox.REPORT_ENV: str(tmp_path / "k.jsonl"),
        },
    )
    proc = subprocess.run(
        [sys.executable, "-c", _IMMEDIATE_SHUTDOWN],
        input=nbformat.writes(nb),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    cpu = float(proc.stdout.split("CPU")[-1])
    assert cpu >= 0.9, f"only {cpu:.2f} s of the kernel's CPU time was accounted for"
    (rec,) = [json.loads(line) for line in (tmp_path / "k.jsonl").read_text().splitlines()]
    assert rec["killed_for"] is None

    def alive_with_token() -> list[str]:
        found = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                state = (cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if token.encode() in cmdline.read_bytes() and state != "Z":  # zombies are dead
                    found.append(cmdline.parent.name)
            except (OSError, IndexError):
                continue
        return found

    deadline = time.monotonic() + 5
    while alive_with_token() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive_with_token(), "a process the kernel started outlived the kernel"
