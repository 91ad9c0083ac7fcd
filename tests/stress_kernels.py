"""``python -m tests.stress_kernels``: run every lab and week notebook headless, many times, on a busy machine.

``make stress-kernels`` (``RUNS=5`` by default). Each notebook (the reference
solutions of the labs and the course weeks, fast mode) runs ``--runs`` times
through nbclient, ``--parallel`` at once, beside ``--burners`` CPU-burning
processes and a process that keeps launching and compiling
(:mod:`tests.machine_load`). Every cell's time is taken on the client side,
from the request to the reply, which is where a lost reply shows.

The table gives, per notebook: runs, cells that hit the cell timeout (hung),
cells in error, and the slowest cell against its own median over the runs. A
cell is flagged when it took over 5 times its median and at least 1 s more
than it (shorter cells only measure scheduling noise). Exit status 1 when any
cell hung or failed.

``--plain-client`` uses nbclient's own kernel client instead of
:class:`autograder.isolation.reply_channel.PromptKernelManager`, to see the lost-reply
wait that module fixes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from tests.machine_load import busy_machine

ROOT = Path(__file__).resolve().parents[1]
FLAG_RATIO, FLAG_EXTRA_S = 5.0, 1.0


def all_notebooks() -> list[Path]:
    return sorted(ROOT.glob("solutions/lab*/lab*.ipynb")) + sorted(ROOT.glob("course/week*.ipynb"))


def run_once(path: Path, timeout_s: int, plain_client: bool) -> dict:
    """Execute one notebook in this process, in a copy of its folder; the time of every code cell, and which
    hung or failed."""
    # the copy keeps what a run writes (a lab's hidden tests write files beside the notebook) out of
    # solutions/, whose files generate copies into the release and the grader's reference run
    with tempfile.TemporaryDirectory(prefix="stress-") as scratch:
        folder = Path(scratch) / path.parent.name
        shutil.copytree(path.parent, folder)
        return _run_in_folder(path, folder, timeout_s, plain_client)


def _run_in_folder(path: Path, folder: Path, timeout_s: int, plain_client: bool) -> dict:
    import nbformat
    from nbclient import NotebookClient

    from autograder.isolation.reply_channel import PromptKernelManager

    nb = nbformat.read(path, as_version=4)
    started: dict[int, float] = {}
    seconds: dict[int, float] = {}

    def on_start(cell, cell_index):
        started[cell_index] = time.perf_counter()

    def on_done(cell, cell_index, execute_reply):
        seconds[cell_index] = time.perf_counter() - started[cell_index]

    extra = {} if plain_client else {"kernel_manager_class": PromptKernelManager}
    client = NotebookClient(
        nb,
        timeout=timeout_s,
        interrupt_on_timeout=True,
        allow_errors=True,
        kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
        resources={"metadata": {"path": str(folder)}},
        shutdown_kernel="immediate",
        on_cell_start=on_start,
        on_cell_executed=on_done,
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
        **extra,
    )
    client.execute()
    errors = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    ]
    hung = [i for i, s in seconds.items() if s >= timeout_s]
    return {"seconds": seconds, "hung": hung, "errors": errors}


def run_in_child(path: Path, timeout_s: int, plain_client: bool) -> dict:
    """:func:`run_once` in a fresh Python, so runs share nothing but the machine."""
    cmd = [sys.executable, "-m", "tests.stress_kernels", "--one", str(path), "--timeout", str(timeout_s)]
    if plain_client:
        cmd.append("--plain-client")
    env = dict(os.environ, HPML_FAST="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"seconds": {}, "hung": [], "errors": [], "crash": " | ".join(tail) or f"exit {proc.returncode}"}
    result = json.loads(lines[-1])
    result["seconds"] = {int(k): v for k, v in result["seconds"].items()}
    return result


def run_under_load(
    jobs: list[Path],
    timeout_s: int,
    parallel: int = 2,
    burners: int = 3,
    plain_client: bool = False,
    progress: bool = False,
    churn: bool = True,
) -> list[dict]:
    """Run each notebook of ``jobs`` (a path may repeat) in its own Python, ``parallel`` at once, beside
    ``burners`` CPU burners and (``churn``) the launch-and-compile loop; one :func:`run_once` result per job, in
    order."""
    with (
        busy_machine(burners=burners, churn=churn),
        ThreadPoolExecutor(parallel) as pool,
        tqdm(total=len(jobs), desc="notebook runs", disable=not progress) as bar,
    ):
        futures = [pool.submit(run_in_child, path, timeout_s, plain_client) for path in jobs]
        results = []
        try:
            for future in futures:
                results.append(future.result())
                bar.update()
        except BaseException:
            # stopped (Ctrl-C, SIGTERM, a failed run): the pool's exit waits for every job it still holds, so
            # the queued notebooks are dropped here; only the ones already running finish
            for future in futures:
                future.cancel()
            raise
    return results


def summarise(path: Path, runs: list[dict]) -> dict:
    per_cell: dict[int, list[float]] = {}
    for run in runs:
        for i, s in run["seconds"].items():
            per_cell.setdefault(i, []).append(s)
    medians = {i: statistics.median(v) for i, v in per_cell.items()}
    flagged = sorted(
        {
            (i, s)
            for run in runs
            for i, s in run["seconds"].items()
            if s > FLAG_RATIO * medians[i] and s - medians[i] >= FLAG_EXTRA_S
        }
    )
    # the largest ratio to its own median; among equal ratios (every ratio is 1 with one run), the longest cell
    slowest = max(
        ((s / max(medians[i], 1e-9), s, i) for run in runs for i, s in run["seconds"].items()), default=(0.0, 0.0, -1)
    )
    return {
        "notebook": path.stem,
        "runs": len(runs),
        "hung": sorted(i for run in runs for i in run["hung"]),
        "errors": sorted(i for run in runs for i in run["errors"]),
        "crashes": [run["crash"] for run in runs if "crash" in run],
        "flagged": flagged,
        "slowest": slowest,
        "medians": medians,
    }


def print_table(rows: list[dict]) -> None:
    print(
        f"\n{'notebook':<34} {'runs':>4} {'hung':>5} {'errors':>6} {'flagged':>7} "
        f"{'slowest cell: s (x its median)':>32}"
    )
    for r in rows:
        ratio, s, cell = r["slowest"]
        slowest = f"cell {cell}: {s:.1f} s ({ratio:.1f}x)" if cell >= 0 else "-"
        print(
            f"{r['notebook']:<34} {r['runs']:>4} {len(r['hung']):>5} {len(r['errors']):>6} "
            f"{len(r['flagged']):>7} {slowest:>32}"
        )
    for r in rows:
        for i, s in r["flagged"]:
            print(f"  {r['notebook']} cell {i}: {s:.1f} s, its median {r['medians'][i]:.2f} s")
        for crash in r["crashes"]:
            print(f"  {r['notebook']}: the run crashed: {crash}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.stress_kernels", description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: every lab and week)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each notebook (default 5)")
    parser.add_argument("--parallel", type=int, default=2, help="notebooks running at once (default 2)")
    parser.add_argument("--burners", type=int, default=3, help="CPU-burning processes beside them (default 3)")
    parser.add_argument("--timeout", type=int, default=300, help="cell timeout in seconds (default 300)")
    parser.add_argument("--plain-client", action="store_true", help="nbclient's own client (shows the lost replies)")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.one:
        print(json.dumps(run_once(args.one, args.timeout, args.plain_client)))
        return 0

    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))  # so that the burners are stopped too
    notebooks = [p.resolve() for p in args.notebooks] or all_notebooks()
    jobs = [path for _ in range(args.runs) for path in notebooks]  # round by round: one notebook rarely overlaps itself
    results: dict[Path, list[dict]] = {path: [] for path in notebooks}
    print(
        f"{len(notebooks)} notebooks x {args.runs} runs, {args.parallel} at once, beside {args.burners} CPU burners "
        f"and a launch-and-compile loop; cell timeout {args.timeout} s; "
        f"client: {'nbclient plain' if args.plain_client else 'autograder.isolation.reply_channel'}",
        flush=True,
    )
    t0 = time.perf_counter()
    for path, run in zip(
        jobs, run_under_load(jobs, args.timeout, args.parallel, args.burners, args.plain_client, progress=True)
    ):
        results[path].append(run)
    rows = [summarise(path, runs) for path, runs in results.items()]
    print_table(rows)
    bad = sum(len(r["hung"]) + len(r["errors"]) + len(r["crashes"]) for r in rows)
    print(
        f"\n{sum(r['runs'] for r in rows)} notebook runs in {time.perf_counter() - t0:.0f} s; "
        f"{sum(len(r['hung']) for r in rows)} hung cells, {sum(len(r['errors']) for r in rows)} cells in error, "
        f"{sum(len(r['flagged']) for r in rows)} flagged slow"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
