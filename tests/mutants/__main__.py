"""``python -m tests.mutants [lab04 ...] [--jobs N]``: grade every mutant and print a kill table per lab.

Exit status 0 when the reference keeps full marks in every lab, every
mutant fails exactly the test cells it names and every must-pass variant
(``fails = []``) keeps every point; 1 otherwise (the table says which).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from . import grade_mutants, labs_with_mutants, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", help="labs to run, e.g. lab04 or lab04_cuda_numba (default: all)")
    parser.add_argument("--jobs", type=int, default=None, help="grading workers (default: the cores)")
    parser.add_argument("--only", nargs="*", default=None, help="run only these mutants (by name)")
    args = parser.parse_args(argv)

    labs = labs_with_mutants()
    if args.labs:
        wanted = [w.split("_")[0] for w in args.labs]
        unknown = [w for w in wanted if not any(lab.startswith(w + "_") for lab in labs)]
        if unknown:
            parser.error(f"no mutants for {', '.join(unknown)}; labs with mutants: {', '.join(labs)}")
        labs = [lab for lab in labs if lab.split("_")[0] in wanted]

    rows, problems = [], []
    for lab in labs:
        mutants = load(lab)
        if args.only:
            mutants = [m for m in mutants if m.name in args.only]
            if not mutants:
                continue
        print(f"== {lab}: grading the reference and {len(mutants)} mutants", flush=True)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"mutants-{lab}-") as tmp:
            reference, outcomes = grade_mutants(
                lab, mutants, Path(tmp), jobs=args.jobs, progress=lambda line: print("  " + line, flush=True)
            )
        seconds = time.perf_counter() - t0
        if reference.failed_tests or reference.status != "graded":
            problems.append(f"{lab}: the reference lost points: {reference.status} {reference.failed_tests}")
        for o in outcomes:
            if not o.exact:
                what = (
                    "MUST PASS, LOST POINTS (a right answer: a test defect, or the variant is wrong)"
                    if o.must_pass
                    else "NOT GRADED"
                    if o.status not in ("graded", "late") and not o.killed
                    else "SURVIVED"
                    if not o.killed
                    else "killed, other cells"
                )
                problems.append(
                    f"{lab}: {o.mutant.name} ({o.mutant.why}): {what}; status {o.status}; "
                    f"failed {sorted(o.failed)}, expected {sorted(o.mutant.fails)}"
                )
        killed = sum(o.killed for o in outcomes)
        exact = sum(o.exact for o in outcomes)
        rows.append((lab, len(outcomes), killed, exact, seconds))
        # each lab's result as soon as it is known: a run of an hour that is stopped keeps the labs it finished
        print(
            f"-- {lab}: {len(outcomes)} mutants, {killed} killed, {exact} exact, {seconds:.0f} s"
            + "".join(f"\n  - {p}" for p in problems if p.startswith(f"{lab}: ")),
            flush=True,
        )

    print(f"\n{'lab':<28} {'mutants':>7} {'killed':>7} {'exact':>6} {'seconds':>8}")
    for lab, n, killed, exact, seconds in rows:
        print(f"{lab:<28} {n:>7} {killed:>7} {exact:>6} {seconds:>8.0f}")
    total = [sum(r[i] for r in rows) for i in (1, 2, 3)]
    print(f"{'total':<28} {total[0]:>7} {total[1]:>7} {total[2]:>6} {sum(r[4] for r in rows):>8.0f}")
    print(
        "(killed: lost at least one test cell; exact: lost exactly the cells the mutant names, or, for a "
        "must-pass variant (fails = []), kept every point)"
    )
    for p in problems:
        print("  - " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
