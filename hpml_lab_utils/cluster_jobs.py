"""The same torchrun job on a cluster (week 7, lab 5): the command lines and a Slurm batch script.

:func:`torchrun_command` is what :func:`hpml_lab_utils.launch.torchrun` runs on
one machine; :func:`multinode_command` and :func:`slurm_script` run it on many.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from typing import Any


def torchrun_command(script: str | os.PathLike, nproc: int, args: Iterable[Any] = ()) -> list[str]:
    """The single-machine command :func:`torchrun` runs, as you would type it in a terminal."""
    return ["torchrun", "--standalone", "--nnodes=1", f"--nproc-per-node={int(nproc)}", str(script), *map(str, args)]


def multinode_command(
    script: str | os.PathLike,
    nnodes: int | str,
    nproc_per_node: int | str,
    rdzv_endpoint: str = "$MASTER_ADDR:29500",
    args: Iterable[Any] = (),
    rdzv_id: str = "$JOB_ID",
) -> str:
    """The same job on ``nnodes`` machines: run this line once on every node (week 7).

    Every node points at the same rendezvous endpoint (``host:port`` of one of
    them, reachable from all); ``--rdzv-id`` names the job so that two jobs
    sharing an endpoint do not mix. ``nnodes`` and ``nproc_per_node`` are numbers
    or shell variables (``"$SLURM_JOB_NUM_NODES"``); ``nproc_per_node="gpu"``
    starts one process per GPU. The global rank is assigned at rendezvous.
    """
    parts = [
        "torchrun",
        f"--nnodes={nnodes}",
        f"--nproc-per-node={nproc_per_node}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint={rdzv_endpoint}",
        f"--rdzv-id={rdzv_id}",
        str(script),
        *map(str, args),
    ]
    return " ".join(p if "$" in p else shlex.quote(p) for p in parts)


def slurm_script(
    script: str | os.PathLike,
    nodes: int,
    gpus_per_node: int,
    args: Iterable[Any] = (),
    *,
    job_name: str = "hpml-ddp",
    time_limit: str = "00:30:00",
    cpus_per_gpu: int = 8,
    partition: str | None = None,
) -> str:
    """A Slurm batch script that runs ``script`` with torchrun on ``nodes`` nodes of ``gpus_per_node`` GPUs.

    Slurm starts one task per node (``srun``); each runs torchrun, which starts one
    worker per GPU. The first node of the allocation hosts the rendezvous. NCCL is
    the backend on GPUs (the script calls ``init_process_group("nccl")``).
    """
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={job_name}",
        f"#SBATCH --nodes={int(nodes)}",
        "#SBATCH --ntasks-per-node=1            # one torchrun per node; it starts the workers",
        f"#SBATCH --gpus-per-node={int(gpus_per_node)}",
        f"#SBATCH --cpus-per-task={int(cpus_per_gpu) * int(gpus_per_node)}",
        f"#SBATCH --time={time_limit}",
    ]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    lines += [
        "#SBATCH --output=%x-%j.out",
        "",
        "# the first node of the allocation hosts the rendezvous",
        'export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)',
        "export MASTER_PORT=29500",
        f"export OMP_NUM_THREADS={int(cpus_per_gpu)}",
        "# export NCCL_DEBUG=INFO               # uncomment to see which network NCCL picks",
        "",
        "srun "
        + multinode_command(
            script,
            "$SLURM_JOB_NUM_NODES",
            gpus_per_node,
            rdzv_endpoint="$MASTER_ADDR:$MASTER_PORT",
            args=args,
            rdzv_id="$SLURM_JOB_ID",
        ),
        "",
    ]
    return "\n".join(lines)
