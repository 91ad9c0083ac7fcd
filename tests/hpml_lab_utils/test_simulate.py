"""hpml_lab_utils.simulate (week 7): ring all-reduce, parameter server, GPipe, sync vs async SGD, simulated."""

from __future__ import annotations

from hpml_lab_utils import simulate

import numpy as np
import pytest


@pytest.mark.parametrize("ranks, n", [(1, 5), (2, 7), (4, 3), (4, 16), (5, 23), (8, 8)])
def test_ring_ends_with_the_sum_everywhere_and_counts_its_traffic(ranks, n):
    data = np.random.default_rng(ranks * 100 + n).standard_normal((ranks, n))
    steps = simulate.ring_allreduce_steps(data)
    assert len(steps) == 1 + 2 * (ranks - 1)
    np.testing.assert_allclose(steps[-1].values, np.broadcast_to(data.sum(axis=0), data.shape))
    assert np.all(steps[-1].contributors == ranks)
    messages = [m for s in steps for m in s.messages]
    assert all(m.dst == (m.src + 1) % ranks for m in messages), "a ring only talks to its right neighbour"
    sent, received = simulate.link_traffic(messages, ranks)
    # each rank sends every chunk but one twice: 2 (N - its own chunk); exactly 2N(P-1)/P when P divides N
    assert sent.sum() == received.sum() == 2 * n * (ranks - 1)
    if n % ranks == 0:
        assert np.all(sent == 2 * n * (ranks - 1) // ranks)


def test_ring_reduce_scatter_leaves_rank_r_with_chunk_r_plus_1_complete():
    ranks = 4
    steps = simulate.ring_allreduce_steps(np.arange(ranks * 8, dtype=float).reshape(ranks, 8))
    after_rs = [s for s in steps if s.phase == "reduce-scatter"][-1]
    for r in range(ranks):
        assert after_rs.contributors[r, (r + 1) % ranks] == ranks
        assert after_rs.contributors[r].sum() < ranks * ranks
    assert [s.phase for s in steps].count("all-gather") == ranks - 1


def test_ring_rejects_a_flat_array():
    with pytest.raises(ValueError, match="one row per rank"):
        simulate.ring_allreduce_steps(np.arange(4.0))


def test_parameter_server_traffic_goes_through_the_server():
    n, ranks = 10, 5
    sent, received = simulate.link_traffic(simulate.parameter_server_messages(n, ranks), ranks)
    assert sent[0] + received[0] == 2 * n * (ranks - 1)
    assert np.all(sent[1:] == n) and np.all(received[1:] == n)
    assert simulate.parameter_server_messages(n, 1) == []


def test_chunk_bounds_match_numpy_array_split():
    for n, parts in [(10, 3), (3, 4), (0, 2), (16, 4)]:
        sizes = [b - a for a, b in simulate.chunk_bounds(n, parts)]
        assert sizes == [len(c) for c in np.array_split(np.arange(n), parts)]


@pytest.mark.parametrize("stages, micro", [(1, 1), (2, 4), (4, 4), (4, 16), (3, 1)])
def test_gpipe_bubble_matches_the_formula(stages, micro):
    ops = simulate.gpipe_schedule(stages, micro, forward_s=1.0, backward_s=2.0)
    assert len(ops) == 2 * stages * micro
    makespan = max(op.end for op in ops)
    assert makespan == pytest.approx((micro + stages - 1) * 3.0)
    assert simulate.bubble_fraction(ops) == pytest.approx((stages - 1) / (micro + stages - 1))
    for stage in range(stages):  # a stage never runs two ops at once
        mine = sorted((op.start, op.end) for op in ops if op.stage == stage)
        assert all(a_end <= b_start + 1e-12 for (_, a_end), (b_start, _) in zip(mine, mine[1:]))


def test_worker_step_times_have_stragglers_when_asked():
    rng = np.random.default_rng(0)
    calm = simulate.worker_step_times(rng, 200, 8, jitter=0.0)
    assert np.allclose(calm, 1.0)
    slow = simulate.worker_step_times(rng, 200, 8, jitter=0.0, straggler_prob=0.1, slowdown=5.0)
    share = np.mean(slow == 5.0)
    assert 0.05 < share < 0.15 and set(np.unique(slow)) <= {1.0, 5.0}


def test_sync_sgd_waits_for_the_slowest_and_converges():
    problem = simulate.LeastSquares(features=5, samples=500, seed=3)
    times = simulate.worker_step_times(np.random.default_rng(1), 100, 4, straggler_prob=0.2)
    run = simulate.sync_sgd(problem, times, lr=0.1, batch=16)
    assert run.times_s[-1] == pytest.approx(times.max(axis=1).sum())
    assert run.losses[-1] < 0.05 * run.losses[0]
    assert np.all(run.staleness == 0) and 0 < run.idle_share < 1


def test_async_sgd_never_waits_but_is_stale():
    problem = simulate.LeastSquares(features=5, samples=500, seed=3)
    times = simulate.worker_step_times(np.random.default_rng(1), 50, 4, straggler_prob=0.2)
    run = simulate.async_sgd(problem, times, lr=0.05, batch=16)
    assert len(run.losses) == 1 + times.size
    assert np.all(np.diff(run.times_s) >= 0)
    assert run.times_s[-1] == pytest.approx(times.sum(axis=0).max())  # the busiest worker finishes last
    assert run.staleness.max() >= 3 and run.staleness.min() == 0
    assert run.losses[-1] < 0.05 * run.losses[0]
    aware = simulate.async_sgd(problem, times, lr=0.05, batch=16, staleness_aware=True)
    assert aware.name.endswith("staleness-aware lr") and np.isfinite(aware.losses[-1])


def test_async_sgd_with_many_workers_and_a_large_step_diverges_where_sync_does_not():
    problem = simulate.LeastSquares(features=10, samples=1000, seed=0)
    times = simulate.worker_step_times(np.random.default_rng(2), 30, 32)
    lr = 0.5
    assert simulate.sync_sgd(problem, times, lr=lr, batch=16).losses[-1] < problem.loss(np.zeros(10))
    stale = simulate.async_sgd(problem, times, lr=lr, batch=16)
    assert not stale.losses[-1] < problem.loss(np.zeros(10))  # diverged (or nan): staleness ~ 31 updates
