"""Make sure the Jupyter kernel the lab notebooks name exists before nbgrader runs them.

The course notebooks use the kernelspec ``hpml`` ("Python 3 (HPML)"), which
``make setup`` registers with ``python -m ipykernel install --sys-prefix``.
When it is missing the autograder registers it the same way (for the Python
running the autograder); if that fails it stops and says to run ``make setup``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import nbformat

COURSE_KERNEL = "hpml"
COURSE_KERNEL_DISPLAY = "Python 3 (HPML)"


class KernelMissing(RuntimeError):
    pass


def kernel_names(notebooks: Iterable[Path]) -> set[str]:
    """The kernelspec names the notebooks ask for."""
    names = set()
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        name = nb.metadata.get("kernelspec", {}).get("name")
        if name:
            names.add(name)
    return names


def _installed() -> set[str]:
    from jupyter_client.kernelspec import KernelSpecManager

    return set(KernelSpecManager().find_kernel_specs())


def install_course_kernel() -> None:
    """Register the course kernel into ``sys.prefix`` (what ``make setup`` does)."""
    cmd = [
        sys.executable,
        "-m",
        "ipykernel",
        "install",
        "--sys-prefix",
        "--name",
        COURSE_KERNEL,
        "--display-name",
        COURSE_KERNEL_DISPLAY,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise KernelMissing(
            f"the Jupyter kernel {COURSE_KERNEL!r} is not installed and registering it failed "
            f"({(proc.stderr or proc.stdout).strip().splitlines()[-1:] or ['no output']}); run `make setup`"
        )


def ensure_kernels(notebooks: Iterable[Path]) -> None:
    """Raise :class:`KernelMissing` unless every kernel the notebooks name exists (installing ``hpml`` if needed)."""
    missing = kernel_names(notebooks) - _installed()
    if COURSE_KERNEL in missing:
        install_course_kernel()
        missing = kernel_names(notebooks) - _installed()
    if missing:
        raise KernelMissing(
            f"the notebooks need the Jupyter kernel(s) {', '.join(sorted(missing))}, which are not installed; "
            "run `make setup` (it registers the course kernel)"
        )
