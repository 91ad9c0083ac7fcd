"""hpml_lab_utils.parallel (bytes a rank holds, a step's peak) and worker_checks (lab10's checkers in real processes)."""

from __future__ import annotations

import textwrap
import time

from hpml_lab_utils import launch, mpi, parallel, worker_checks

import pytest
import torch
import torch.nn as nn

pytestmark = [pytest.mark.lab10, pytest.mark.slow]


def test_held_bytes_counts_parameters_gradients_and_adam_state():
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
    n = sum(p.numel() for p in model.parameters())  # 283
    optimizer = torch.optim.Adam(model.parameters())
    assert parallel.held_bytes(model, optimizer) == {"params": 4 * n, "grads": 0, "optimizer": 0, "total": 4 * n}
    model(torch.randn(4, 10)).sum().backward()
    optimizer.step()
    held = parallel.held_bytes(model, optimizer)
    # Adam: exp_avg and exp_avg_sq per parameter, plus a float32 step counter per tensor (4 tensors)
    assert held["grads"] == 4 * n and held["optimizer"] == 2 * 4 * n + 4 * 4
    assert held["total"] == held["params"] + held["grads"] + held["optimizer"]


def test_held_bytes_reads_a_sharded_optimizers_local_one():
    model = nn.Linear(4, 2)

    class Sharded:
        local_optimizer = None

    assert parallel.held_bytes(model, Sharded())["optimizer"] == 0


def test_step_peak_bytes_sees_a_temporary_allocation():
    def allocate_and_free():
        big = torch.ones(1 << 20)  # 4 MiB, freed before returning
        return float(big[0])

    result, peak = parallel.step_peak_bytes(allocate_and_free)
    assert result == 1.0
    assert 4 << 20 <= peak < 6 << 20
    _, small = parallel.step_peak_bytes(lambda: torch.ones(16).sum())
    assert small < 4096


CHECKER = textwrap.dedent("""
    import torch
    import torch.distributed as dist
    from hpml_lab_utils import launch, worker_checks as wc

    spec = wc.load_spec()
    log = wc.CommLog.install()
    wc.init_gloo(timeout_s=spec["timeout_s"])
    rank, world = dist.get_rank(), dist.get_world_size()
    x = torch.ones(spec["n"])
    with log.recording() as calls:
        if spec["deadlock"] and rank == 0:
            dist.recv(x, src=1)  # nobody sends
        else:
            dist.all_reduce(x)
            work = dist.all_reduce(x, async_op=True)
            work.wait()
            if rank == 0:
                dist.send(x, dst=1)
            elif rank == 1:
                dist.recv(x, src=0)
    launch.save_result({"calls": calls, "x": x})
""")


def test_run_checker_records_every_call_of_each_rank():
    results = worker_checks.run_checker(CHECKER, 2, {"n": 5, "deadlock": False, "timeout_s": 20}, timeout_s=60)
    assert sorted(results) == [0, 1]
    names = [(c["name"], c["peer"], c["numel"], c["async_op"]) for c in results[0]["calls"]]
    assert names == [("all_reduce", None, 5, False), ("all_reduce", None, 5, True), ("send", 1, 5, False)]
    assert [c["name"] for c in results[1]["calls"]] == ["all_reduce", "all_reduce", "recv"]
    assert results[1]["calls"][-1]["peer"] == 0  # send() calls isend() inside: recorded once, as send
    assert torch.equal(results[1]["x"], torch.full((5,), 4.0))


def test_a_deadlocked_checker_fails_within_the_process_group_timeout():
    start = time.perf_counter()
    with pytest.raises(launch.LaunchError) as caught:
        worker_checks.run_checker(CHECKER, 2, {"n": 3, "deadlock": True, "timeout_s": 3}, timeout_s=60)
    assert time.perf_counter() - start < 30, "the process group's timeout, not the launch's, must end it"
    assert not isinstance(caught.value, launch.LaunchTimeout)


def test_run_checker_rejects_an_unknown_launcher():
    with pytest.raises(ValueError, match="launcher"):
        worker_checks.run_checker("pass", 1, {}, launcher="srun")


@pytest.mark.skipif(not mpi.mpi_available()[0], reason=mpi.mpi_available()[1])
def test_mpi_comm_log_records_what_each_rank_sends():
    code = textwrap.dedent("""
        import numpy as np
        from mpi4py import MPI
        from hpml_lab_utils import launch, worker_checks as wc

        comm = wc.MpiCommLog(MPI.COMM_WORLD)
        rank, size = comm.Get_rank(), comm.Get_size()
        out = np.empty(4)
        comm.Sendrecv(np.full(4, float(rank)), dest=(rank + 1) % size, recvbuf=out, source=(rank - 1) % size)
        comm.Allreduce(np.ones(2), np.empty(2))
        launch.save_result({"calls": comm.calls, "out": out})
    """)
    results = worker_checks.run_checker(code, 3, {}, timeout_s=60, launcher="mpiexec")
    assert results[1]["calls"] == [
        {"name": "Sendrecv", "dest": 2, "numel": 4},
        {"name": "Allreduce", "dest": None, "numel": 2},
    ]
    assert results[1]["out"].tolist() == [0.0] * 4


def test_hidden_summary_names_the_cases_but_never_the_expected_values():
    problems = [
        (0, "2 ranks, widths [4, 8]", "rank 1's buckets are [[3, 2], [1, 0]], expected [[3, 2, 1], [0]]"),
        (1, "3 ranks, widths [5, 9]", "rank 0's parameters differ from single-process training"),
        (2, "3 ranks", "the last rank's loss is 2.5, expected the mean over micro-batches 1.25"),
        (3, "4 ranks", "a fourth problem"),
    ]
    text = worker_checks.hidden_summary(problems)
    assert "[[3, 2, 1], [0]]" not in text and "1.25" not in text
    assert "2 ranks, widths [4, 8]: rank 1's buckets are [[3, 2], [1, 0]] (differs from the reference)" in text
    assert "rank 0's parameters differ from single-process training" in text
    assert text.endswith("; and 1 more")
