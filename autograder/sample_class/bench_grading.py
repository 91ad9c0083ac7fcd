"""Benchmark of class grading: ``python -m autograder.sample_class.bench_grading [--students 40] [--jobs 1,2]``.

Builds a class of lab01 submissions (``perfect``, ``one_wrong`` and
``untouched`` in turn, from the current solution and a fresh release) in a
temporary folder and grades it, all in one run:

1. the notebook's own execution time: plain ``nbclient`` runs (kernel start
   included, the kernel killed after the last cell as our grading does,
   ``HPML_FAST=1``, ``NBGRADER_EXECUTION=autograde`` as when grading), the best
   of ``--repeats`` runs, of the perfect submission as the
   student sent it and of the notebook as grading must execute it (the
   student's answers plus the hidden tests: for the perfect student, the
   source notebook);
2. plain ``nbgrader autograde`` (one process, serial) with the course's
   configuration minus our pipeline (no workers, no sandbox, no tamper guards);
3. ``python -m autograder autograde --jobs N`` for each N of ``--jobs``; the
   reference's run (once per lab version: a later batch finds it in the grading
   folder) is timed apart and printed, not counted per submission;
4. with ``--slurm``, the same through ``--backend slurm`` (one array job, at
   most N tasks at once) on a one-node cluster, and Slurm's overhead per
   submission over the local run with the same N.

It prints seconds per submission, the speed-up of each over plain nbgrader,
the per-submission overhead of ``--jobs 1`` over the notebook's own time (as
graded, and as submitted: the hidden tests are work any grader must do), and
whether every way gave the same points. Beside wall time it gives the CPU
seconds of each (this process and every process it waited for: workers,
kernels, nbgrader), which other load on the machine disturbs much less than
wall time. Not a test: timings on a shared machine are noisy (run it on a
quiet one). Targets on 2 cores: ``--jobs 2``
1.8x or more faster than plain nbgrader; overhead under 1.5 s a submission.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from unittest import mock

import nbformat

from ..grading.autograde import autograde_class
from ..grading.reference_results import reference_results
from ..grading.scheduler import default_jobs
from ..grading.slurm import SlurmOptions
from ..lab_settings import limits_for
from ..labs import source_notebooks
from ..paths import CoursePaths
from ..pipeline.generate import register_lab
from ..pipeline.nbgrader_app import open_gradebook, prepare_nbgrader
from .build import LAB, build_sample_class

KINDS = ("perfect", "one_wrong", "untouched")


def build_class(out: Path, n: int, source: Path, release: Path) -> dict[str, Path]:
    """``n`` students ``s001_perfect``, ``s002_one_wrong``, ``s003_untouched``, ... in ``out``."""
    models = build_sample_class(out / "_models", source, release)
    files = {}
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        sid = f"s{i + 1:03d}_{kind}"
        dest = out / sid / release.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(models[kind], dest)
        files[sid] = dest
    shutil.rmtree(out / "_models")
    return files


def become_subreaper() -> None:
    """Make orphaned descendants (a worker's kernel outlives the worker) children of this process (Linux).

    Once reaped (:func:`reap_orphans`) their CPU time counts in ``RUSAGE_CHILDREN``;
    without this, the kernels of our workers would escape the CPU figures.
    """
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def reap_orphans(settle_s: float = 1.0) -> None:
    """Reap every child that has exited (call it only when no worker of ours is running)."""
    deadline = time.monotonic() + settle_s
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of all its children that have been waited for."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


class Clock:
    """Wall and CPU seconds of a block: ``with Clock() as c: ...`` then ``c.wall``, ``c.cpu``."""

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._wall
        reap_orphans()
        self.cpu = cpu_seconds() - self._cpu


def time_notebook(path: Path, repeats: int) -> tuple[float, float]:
    """Best wall time of a plain nbclient run of one notebook (kernel start included), and that run's CPU seconds.

    The kernel is killed after the last cell, as our grading does: its interpreter's exit is not the notebook's work.
    """
    from nbclient import NotebookClient

    from autograder.isolation.reply_channel import PromptKernelManager

    best, best_cpu = float("inf"), float("nan")
    with mock.patch.dict(os.environ, {"HPML_FAST": "1", "NBGRADER_EXECUTION": "autograde"}):
        for _ in range(repeats):
            nb = nbformat.read(path, as_version=4)
            with tempfile.TemporaryDirectory() as cwd:
                with Clock() as clock:
                    NotebookClient(
                        nb,
                        timeout=600,
                        kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
                        resources={"metadata": {"path": cwd}},
                        allow_errors=True,
                        shutdown_kernel="immediate",
                        kernel_manager_class=PromptKernelManager,
                        extra_arguments=["--IPKernelApp.log_level=ERROR"],
                    ).execute()
                if clock.wall < best:
                    best, best_cpu = clock.wall, clock.cpu
    return best, best_cpu


PLAIN_CONFIG = """\
# plain nbgrader for the benchmark: the course's folders and execution settings, nbgrader's own pipeline
c = get_config()
c.CourseDirectory.course_id = "hpml"
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = {release!r}
c.CourseDirectory.submitted_directory = {submitted!r}
c.CourseDirectory.autograded_directory = {autograded!r}
c.CourseDirectory.feedback_directory = {feedback!r}
c.CourseDirectory.db_url = {db_url!r}
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True
c.Execute.startup_timeout = 120
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]
c.OverwriteCells.add_missing_cells = True
"""


def plain_nbgrader(files: dict[str, Path], paths: CoursePaths, folder: Path) -> tuple[Clock, dict[str, float]]:
    """Grade ``files`` with one serial ``nbgrader autograde``; return (its wall and CPU seconds, score per student)."""
    folder.mkdir(parents=True, exist_ok=True)
    cfg = PLAIN_CONFIG.format(
        root=str(paths.root),
        release=str(paths.scratch_release),
        submitted=str(folder / "submitted"),
        autograded=str(folder / "autograded"),
        feedback=str(folder / "feedback"),
        db_url=f"sqlite:///{folder / 'gradebook.db'}",
    )
    (folder / "nbgrader_config.py").write_text(cfg, encoding="utf-8")
    for sid, path in files.items():
        dest = folder / "submitted" / sid / LAB / path.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    env = dict(os.environ, HPML_FAST="1")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    nbgrader = [sys.executable, "-m", "nbgrader"]
    # register the lab in this gradebook (generate into the scratch release the course already uses)
    subprocess.run(
        nbgrader + ["generate_assignment", LAB, "--force", "--create", "--log-level=ERROR"],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    with Clock() as clock:
        proc = subprocess.run(
            nbgrader + ["autograde", LAB, "--force", "--create", "--log-level=ERROR"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"nbgrader autograde failed: {proc.stderr[-2000:]}")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}", "hpml") as gb:
        for sid in files:
            with contextlib.suppress(Exception):
                sub = gb.find_submission(LAB, sid)
                scores[sid] = float(
                    sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell.cell_type == "code")
                )
    return clock, scores


def ours(
    class_dir: Path, work: Path, jobs: int, root: Path, slurm: SlurmOptions | None = None
) -> tuple[Clock, dict[str, float], dict[str, str]]:
    """Grade the class with our pipeline and ``jobs`` workers (or Slurm tasks); return (wall and CPU seconds,
    auto points, statuses). CPU seconds do not count a Slurm task's processes (slurmd runs them)."""
    paths = CoursePaths(root=root, work=work, release=root / "labs")
    register_lab(LAB, paths)  # as a fresh `autograde` would, before its clock starts
    # the reference's results: once per lab version, kept in the grading folder for every later batch; timed apart
    with Clock() as reference_clock:
        reference_results(LAB, paths, limits_for(LAB))
    print(f"  reference run (once per lab version): {reference_clock.wall:.1f} s", flush=True)
    with Clock() as clock:
        results = autograde_class(LAB, class_dir, paths, progress=None, jobs=jobs, force=True, bar=True, slurm=slurm)
    scores = {}
    with open_gradebook(paths) as gb:
        for r in results:
            with contextlib.suppress(Exception):
                sub = gb.find_submission(LAB, r.student_id)
                scores[r.student_id] = float(
                    sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell.cell_type == "code")
                )
    return clock, scores, {r.student_id: r.status for r in results}


@contextlib.contextmanager
def _cluster(base: Path):
    """The cluster of ``$SLURM_CONF``, or a one-node cluster started in ``base/slurm`` for the run."""
    if os.environ.get("SLURM_CONF"):
        yield
        return
    sys.path.insert(0, str(CoursePaths.from_env().root))
    from deploy.slurm import cluster

    cluster.start(base / "slurm", memory_limits=True)
    try:
        yield
    finally:
        cluster.stop(base / "slurm")
        os.environ.pop("SLURM_CONF", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.sample_class.bench_grading", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--students", type=int, default=40, help="class size (default 40)")
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values to time (default 1,2)")
    parser.add_argument("--repeats", type=int, default=2, help="nbclient runs of the perfect notebook (best kept)")
    parser.add_argument("--no-plain", action="store_true", help="skip plain nbgrader")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--slurm",
        action="store_true",
        help="also grade through Slurm with each --jobs (a one-node cluster started here as root, "
        "deploy/slurm/cluster.py, unless $SLURM_CONF names one)",
    )
    args = parser.parse_args(argv)
    jobs_list = [int(j) for j in args.jobs.split(",") if j.strip()]
    become_subreaper()

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hpml-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    root = CoursePaths.from_env().root
    setup = CoursePaths(root=root, work=base / "setup", release=root / "labs")
    prepare_nbgrader()
    release = register_lab(LAB, setup)[0]
    source = source_notebooks(LAB, setup)[0]
    class_dir = base / "class"
    files = build_class(class_dir, args.students, source, release)
    n = len(files)
    print(
        f"bench: {n} submissions of {LAB} ({', '.join(KINDS)} in turn) in {base}; {default_jobs()} usable cores",
        flush=True,
    )
    figures: dict = {"students": n, "cores": default_jobs()}

    perfect = next(p for sid, p in files.items() if sid.endswith("_perfect"))
    submitted_s, submitted_cpu = time_notebook(perfect, args.repeats)
    nb_s, nb_cpu = time_notebook(source, args.repeats)
    figures.update(
        notebook_submitted_s=submitted_s, notebook_s=nb_s, notebook_submitted_cpu_s=submitted_cpu, notebook_cpu_s=nb_cpu
    )
    print(
        f"notebook alone (nbclient, kernel start included): {submitted_s:.2f} s as submitted (perfect), "
        f"{nb_s:.2f} s as graded (with the hidden tests); CPU {submitted_cpu:.2f} s and {nb_cpu:.2f} s",
        flush=True,
    )

    rows, all_scores = [], {}
    if not args.no_plain:
        plain = CoursePaths(root=root, work=base / "plain_setup", release=root / "labs")
        register_lab(LAB, plain)
        clock, scores = plain_nbgrader(files, plain, base / "plain")
        rows.append(("plain nbgrader (serial)", clock))
        all_scores["plain"] = scores
        print(f"plain nbgrader autograde: {clock.wall:.1f} s ({clock.wall / n:.2f} s per submission)", flush=True)

    def timed(label: str, key: str, folder: str, jobs: int, slurm: SlurmOptions | None = None) -> None:
        clock, scores, statuses = ours(class_dir, base / folder, jobs, root, slurm)
        rows.append((label, clock))
        all_scores[key] = scores
        bad = {sid: st for sid, st in statuses.items() if st != "graded"}
        print(
            f"{label}: {clock.wall:.1f} s ({clock.wall / n:.2f} s per submission)"
            + (f"; not graded: {bad}" if bad else ""),
            flush=True,
        )

    for jobs in jobs_list:
        timed(f"autograde --jobs {jobs}", f"jobs{jobs}", f"ours_j{jobs}", jobs)

    if args.slurm:
        with _cluster(base):
            for jobs in jobs_list:
                timed(f"slurm --jobs {jobs}", f"slurm{jobs}", f"slurm_j{jobs}", jobs, SlurmOptions())
        for jobs in jobs_list:
            local, through = dict(rows).get(f"autograde --jobs {jobs}"), dict(rows)[f"slurm --jobs {jobs}"]
            if local:
                extra = (through.wall - local.wall) / n
                figures[f"slurm_overhead_jobs{jobs}_s"] = extra
                print(f"Slurm's overhead with --jobs {jobs}: {extra:+.2f} s per submission (same parallel tasks)")

    clocks = dict(rows)
    plain_s = clocks["plain nbgrader (serial)"].wall if "plain nbgrader (serial)" in clocks else None
    print()
    print(f"{'method':<26} {'total s':>8} {'s/submission':>13} {'speed-up vs plain':>18} {'CPU s/submission':>17}")
    for name, clock in rows:
        s = clock.wall
        speed = f"{plain_s / s:.2f}x" if plain_s else "-"
        print(f"{name:<26} {s:>8.1f} {s / n:>13.2f} {speed:>18} {clock.cpu / n:>17.2f}")
        figures[name] = {
            "total_s": s,
            "per_submission_s": s / n,
            "speedup_vs_plain": plain_s / s if plain_s else None,
            "cpu_per_submission_s": clock.cpu / n,
        }
    if 1 in jobs_list and 2 in jobs_list:
        j1, j2 = clocks["autograde --jobs 1"].wall, clocks["autograde --jobs 2"].wall
        print(f"\nspeed-up of --jobs 2 over --jobs 1: {j1 / j2:.2f}x")
        figures["speedup_jobs2_over_jobs1"] = j1 / j2
    if 1 in jobs_list:
        per, per_cpu = clocks["autograde --jobs 1"].wall / n, clocks["autograde --jobs 1"].cpu / n
        figures["overhead_s"] = per - nb_s
        figures["overhead_vs_submitted_s"] = per - submitted_s
        figures["overhead_cpu_s"] = per_cpu - nb_cpu
        print(
            f"per-submission overhead of --jobs 1 over the notebook alone: {per - nb_s:+.2f} s as graded "
            f"({per:.2f} s vs {nb_s:.2f} s), {per - submitted_s:+.2f} s as submitted ({submitted_s:.2f} s); "
            f"CPU {per_cpu - nb_cpu:+.2f} s as graded ({per_cpu:.2f} s vs {nb_cpu:.2f} s)"
        )
    if len(all_scores) > 1:
        ref_name, ref = next(iter(all_scores.items()))
        same = all(s == ref for s in all_scores.values())
        figures["same_points"] = same
        print(
            f"same points in every run: {'yes' if same else 'NO'}"
            + ("" if same else " " + json.dumps({k: v for k, v in all_scores.items()}, sort_keys=True)[:2000])
        )
    print(
        textwrap.dedent("""
        targets on 2 cores: --jobs 2 at least 1.8x faster than plain nbgrader; overhead under 1.5 s.
        timings on a shared machine are noisy.""")
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
