"""hpml_lab_utils.mpi (week 7): mpiexec from a notebook, per-rank output, the failed rank named, no orphans.

Every launch starts real MPI processes with the mpich wheel's ``mpiexec`` (a
fraction of a second each). Leftover processes are found by a tag the test
puts in the ranks' environment.
"""

from __future__ import annotations

import textwrap
import time
import uuid
from pathlib import Path

from hpml_lab_utils import launch, mpi

import pytest

pytestmark = [pytest.mark.skipif(not mpi.mpi_available()[0], reason=mpi.mpi_available()[1]), pytest.mark.slow]


def _script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def test_ranks_exchange_messages_print_per_rank_and_hand_back_results(tmp_path, capsys):
    _script(
        tmp_path,
        "ring.py",
        """
        import sys
        import numpy as np
        from mpi4py import MPI
        from hpml_lab_utils.launch import save_result

        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        token = np.array([rank], dtype=np.int64)
        received = np.empty_like(token)
        comm.Sendrecv(token, dest=(rank + 1) % size, recvbuf=received, source=(rank - 1) % size)
        total = comm.allreduce(rank * 10 + int(sys.argv[1]))
        print(f"rank {rank} of {size} got {int(received[0])}, sum {total}")
        save_result({"received": int(received[0]), "sum": total, "torch": "torch" in sys.modules})
        """,
    )
    result = mpi.mpiexec("ring.py", 3, args=[1], cwd=tmp_path, timeout_s=60)
    assert result.returncode == 0 and result.nproc == 3
    assert result.command == ["mpiexec", "-n", "3", "python", "-m", "mpi4py", "ring.py", "1"]
    for rank in range(3):
        assert result.outputs[rank] == [f"rank {rank} of 3 got {(rank - 1) % 3}, sum 33"]
        # a rank of numpy arrays reports without importing torch (pickle, not torch.save)
        assert result.results[rank] == {"received": (rank - 1) % 3, "sum": 33, "torch": False}
    shown = capsys.readouterr().out
    assert "[rank 2] rank 2 of 3 got 1, sum 33" in shown


def test_a_failing_rank_is_named_and_the_others_do_not_hang(tmp_path):
    _script(
        tmp_path,
        "fails.py",
        """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.Get_rank() == 1:
            raise ValueError("rank 1 cannot go on")
        comm.Barrier()  # ranks 0 and 2 would wait here forever without python -m mpi4py's abort
        """,
    )
    start = time.monotonic()
    with pytest.raises(launch.LaunchError) as failure:
        mpi.mpiexec("fails.py", 3, cwd=tmp_path, timeout_s=60, stream=False)
    assert time.monotonic() - start < 30
    assert failure.value.rank == 1
    assert "rank 1 of 3 failed (ValueError: rank 1 cannot go on)" in str(failure.value)
    assert not isinstance(failure.value, launch.LaunchTimeout)


def test_a_deadlock_times_out_and_leaves_nothing_running(tmp_path):
    _script(
        tmp_path,
        "deadlock.py",
        """
        import os
        import numpy as np
        from mpi4py import MPI
        fds = f"/proc/{os.getppid()}/fd"  # this rank's hydra_pmi_proxy
        opened = [os.path.realpath(os.path.join(fds, fd)) for fd in os.listdir(fds)]
        with open(f"topology-{MPI.COMM_WORLD.Get_rank()}.txt", "w") as f:  # the hydra file its proxy holds open
            f.write(" ".join(p for p in opened if "hydra_hwloc_xmlfile" in p))
        buffer = np.empty(1)
        MPI.COMM_WORLD.Recv(buffer, source=MPI.ANY_SOURCE)  # every rank waits for a message nobody sends
        """,
    )
    tag = uuid.uuid4().hex
    start = time.monotonic()
    with pytest.raises(launch.LaunchTimeout, match="timed out after 2 s"):
        mpi.mpiexec("deadlock.py", 2, cwd=tmp_path, timeout_s=2, env={"HPML_TEST_TAG": tag}, stream=False)
    assert time.monotonic() - start < 15
    assert launch.pids_with_env("HPML_TEST_TAG", tag) == []
    # the topology file mpiexec hands its ranks (/tmp/hydra_hwloc_xmlfile_*): it removes it when it is stopped,
    # and a SIGKILL would leave it in /tmp
    topology = {path for r in range(2) for path in (tmp_path / f"topology-{r}.txt").read_text().split()}
    assert topology, "the ranks found no topology file: the check below would check nothing"
    assert [path for path in topology if Path(path).exists()] == []


def test_bad_arguments_get_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="nproc"):
        mpi.mpiexec("x.py", 0, cwd=tmp_path)
    with pytest.raises(ValueError, match="timeout_s"):
        mpi.mpiexec("x.py", 2, cwd=tmp_path, timeout_s=0)
    with pytest.raises(FileNotFoundError, match="write the MPI script first"):
        mpi.mpiexec("missing.py", 2, cwd=tmp_path)
