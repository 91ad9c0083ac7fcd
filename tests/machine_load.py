"""A busy machine on demand: CPU burners plus process churn, stopped by process id.

A grading night is not a quiet machine: other kernels start, compile and
finish while yours runs. :func:`busy_machine` reproduces that on purpose for
the stress and load tests (``make stress-kernels``, the widget and speed
tests under load):

- ``burners`` processes that spin on one core each (pure Python, no I/O);
- one churn process that starts a short Python process every second or so,
  which imports NumPy and compiles a Numba function (launches, imports, LLVM).

Everything it starts is a child of this process, killed by its pid on exit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

BURN = "while True: pass"
CHURN = (
    "import subprocess, sys, time\n"
    "job = 'import numpy, numba\\nnumba.njit(lambda x: x * 2 + 1)(3)'\n"
    "while True:\n"
    "    subprocess.run([sys.executable, '-c', job], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "    time.sleep(1.0)  # about half a core: launches and compiles come and go, as other students' kernels do\n"
)


def _start(code: str) -> subprocess.Popen:
    # a session of its own, so the churn's children are killed with it
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@contextlib.contextmanager
def busy_machine(burners: int = 3, churn: bool = True) -> Iterator[list[int]]:
    """Run `burners` spinning processes (and the churn process) while the block runs; yields their pids."""
    procs: list[subprocess.Popen] = []
    try:
        procs += [_start(BURN) for _ in range(burners)]
        if churn:
            procs.append(_start(CHURN))
        yield [p.pid for p in procs]
    finally:
        for proc in procs:
            _stop(proc)
