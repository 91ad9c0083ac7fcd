"""GPUs for grading kernels: which ones this machine lets us use, which one each worker gets, and what of
``/dev`` and ``/proc`` its sandbox shows.

A worker is given one GPU id (``HPML_SANDBOX_GPU``, set by the batch, :func:`assign`). Its kernel then sees that
GPU alone, as CUDA device 0:

- limits only: ``CUDA_VISIBLE_DEVICES`` = the id (CUDA renumbers the visible devices from 0);
- bubblewrap: the sandbox's fresh ``/dev`` holds only that GPU's node (``/dev/nvidiaN``) and the control nodes
  (:data:`CONTROL_NODES`), ``/proc/driver/nvidia/gpus`` only that GPU's entry (as NVIDIA's container runtime
  does), and ``CUDA_VISIBLE_DEVICES=0``.

``HPML_GPU_DEV_DIR`` names the folder the NVIDIA device nodes are read from (default ``/dev``): the tests point it
at stand-in nodes, so all of this is checked on a machine without a GPU.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

GPU_ENV = "HPML_SANDBOX_GPU"  # the worker's GPU (an index, or a UUID a scheduler gave)
SHARED_ENV = "HPML_SANDBOX_GPU_SHARED"  # how many students may use that GPU at once (set when more than 1)
DEV_DIR_ENV = "HPML_GPU_DEV_DIR"
CONTROL_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset")
PROC_GPUS = Path("/proc/driver/nvidia/gpus")
HIDDEN_VALUES = ("", "-1", "none", "void", "NoDevFiles")


def dev_dir() -> Path:
    return Path(os.environ.get(DEV_DIR_ENV) or "/dev")


def node_indices(folder: Path | None = None) -> list[int]:
    """Indices N of the GPU device nodes ``nvidiaN`` in ``folder`` (default :func:`dev_dir`), sorted."""
    folder = dev_dir() if folder is None else folder
    out = []
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            m = re.fullmatch(r"nvidia(\d+)", entry.name)
            if m:
                out.append(int(m.group(1)))
    return sorted(out)


def visible_gpus(env: dict | None = None) -> list[str]:
    """The GPUs this grader may hand out: ``CUDA_VISIBLE_DEVICES`` (or ``NVIDIA_VISIBLE_DEVICES``) as a scheduler
    set it, else every device node; ``[]`` when there is none or the variable hides them all."""
    env = os.environ if env is None else env
    for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        value = env.get(name)
        if value is None:
            continue
        value = value.strip()
        if value in HIDDEN_VALUES:
            return []
        if value != "all":
            nodes = node_indices()
            return [v.strip() for v in value.split(",") if v.strip()] if nodes else []
    return [str(i) for i in node_indices()]


def assign(slot: int, gpus: Sequence[str], jobs_per_gpu: int) -> str | None:
    """The GPU of worker slot ``slot`` (0-based): slots 0..K-1 share the first GPU, K..2K-1 the second, ..."""
    if not gpus:
        return None
    return gpus[(slot // max(1, jobs_per_gpu)) % len(gpus)]


def kernel_env(gpu: str | None, bubblewrap: bool) -> dict[str, str]:
    """What the kernel's environment says about its GPU: the one it may use, as CUDA device 0."""
    if gpu is None:
        return {"CUDA_VISIBLE_DEVICES": ""}  # a GPU lab graded without one, or a CPU lab: CUDA sees none
    return {"CUDA_VISIBLE_DEVICES": "0" if bubblewrap and gpu.isdigit() else gpu}


def device_nodes(gpu: str | None, folder: Path | None = None) -> list[tuple[str, str]]:
    """(node on this machine, its path in the sandbox) for the worker's GPU and the control nodes that exist.

    A GPU given by UUID cannot be told apart by its node: every GPU node is bound then (CUDA picks it by UUID).
    """
    if gpu is None:
        return []
    folder = dev_dir() if folder is None else folder
    indices = [int(gpu)] if gpu.isdigit() else node_indices(folder)
    names = [f"nvidia{i}" for i in indices] + list(CONTROL_NODES)
    out = [(str(folder / n), f"/dev/{n}") for n in names if (folder / n).exists()]
    caps = folder / "nvidia-caps"  # MIG and fabric capabilities
    if caps.is_dir():
        out.append((str(caps), "/dev/nvidia-caps"))
    return out


def proc_entry(gpu: str | None, proc_gpus: Path = PROC_GPUS) -> str | None:
    """The driver's ``/proc/driver/nvidia/gpus/<bus id>`` folder of GPU index ``gpu`` (its ``Device Minor``)."""
    if gpu is None or not gpu.isdigit():
        return None
    with contextlib.suppress(OSError):
        for entry in sorted(proc_gpus.iterdir()):
            info = (entry / "information").read_text()
            m = re.search(r"Device Minor:\s*(\d+)", info)
            if m and int(m.group(1)) == int(gpu):
                return str(entry)
    return None


def bwrap_args(gpu: str | None, folder: Path | None = None, proc_gpus: Path = PROC_GPUS) -> list[str]:
    """bubblewrap arguments (after its fresh ``/dev`` and ``/proc``) that show the worker's GPU and nothing else."""
    args = []
    for src, dest in device_nodes(gpu, folder):
        args += ["--dev-bind", src, dest]
    entry = proc_entry(gpu, proc_gpus)
    if entry is not None and proc_gpus.is_dir():
        args += ["--tmpfs", str(proc_gpus), "--ro-bind", entry, entry]
    return args
