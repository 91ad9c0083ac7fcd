"""Distributed training, simulated in one process: who sends what, and when (week 7, lab05).

Nothing here starts a process or opens a socket: each function replays an
algorithm on NumPy arrays and records every message, so the traffic formulas of
week 7 can be *counted*, not only believed.

* :func:`ring_allreduce_steps`: ring all-reduce (reduce-scatter, then all-gather)
  on ``P`` simulated ranks, step by step. Each rank sends ``2(P-1)`` chunks of
  about ``N/P`` elements: ``2N(P-1)/P`` elements per rank.
* :func:`parameter_server_messages`: one step of a central parameter server
  (one of the ``P`` processes): ``N(P-1)`` elements in, ``N(P-1)`` out, all
  through the server's link.
* :func:`link_traffic`: elements sent and received per rank, from a list of messages.
* :func:`gpipe_schedule`: the GPipe pipeline schedule (all forwards, then all
  backwards) of ``S`` stages and ``M`` micro-batches; its idle share, the
  *bubble*, is ``(S-1)/(M+S-1)`` when every stage takes the same time.
* :func:`sync_sgd` and :func:`async_sgd`: data-parallel SGD on a least-squares
  problem with workers whose step times vary (stragglers). Synchronous SGD waits
  for the slowest worker at every step; asynchronous SGD (a parameter server that
  applies each gradient when it arrives) never waits, but applies gradients
  computed on parameters that are ``staleness`` updates old.

The distributed version of the ring, with real processes, is lab05's job.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

# --------------------------------------------------------------------------- messages and traffic


@dataclass(frozen=True)
class Message:
    """One point-to-point message: ``elements`` numbers from rank ``src`` to rank ``dst``."""

    src: int
    dst: int
    elements: int
    chunk: int = -1  # which chunk of the tensor (ring all-reduce), -1 when the whole tensor


def link_traffic(messages: list[Message], ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Elements sent and received by each of ``ranks`` ranks: ``(sent, received)``, int64 arrays (week 7).

    With one network link per rank, ``sent[r] + received[r]`` is the load on
    rank ``r``'s link; the busiest link sets the communication time.
    """
    sent = np.zeros(ranks, dtype=np.int64)
    received = np.zeros(ranks, dtype=np.int64)
    for m in messages:
        sent[m.src] += m.elements
        received[m.dst] += m.elements
    return sent, received


def parameter_server_messages(n: int, ranks: int, server: int = 0) -> list[Message]:
    """The messages of one parameter-server step: every worker sends ``n`` gradient elements to ``server``,
    which sends ``n`` parameter elements back to each (week 7, lab05 Part 1).

    One of the ``ranks`` processes is the server, so there are ``ranks - 1``
    workers: ``2 n (ranks - 1)`` elements, every one through the server's link.
    """
    if n < 0 or ranks < 1 or not 0 <= server < ranks:
        raise ValueError("need n >= 0, ranks >= 1 and 0 <= server < ranks")
    workers = [r for r in range(ranks) if r != server]
    return [Message(w, server, n) for w in workers] + [Message(server, w, n) for w in workers]


@dataclass
class RingStep:
    """What one step of ring all-reduce did (week 7).

    ``phase``: ``"start"``, ``"reduce-scatter"`` or ``"all-gather"``; ``step``: its
    index in that phase; ``messages``: one per rank, to its right neighbour;
    ``values``: the ``(P, N)`` array every rank holds after the step;
    ``contributors``: ``(P, P)`` array, entry ``[rank, chunk]`` = how many ranks'
    inputs are summed in that rank's copy of that chunk (``P`` = complete).
    """

    phase: str
    step: int
    messages: list[Message]
    values: np.ndarray = field(repr=False)
    contributors: np.ndarray = field(repr=False)


def chunk_bounds(n: int, parts: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of ``parts`` chunks of ``n`` elements whose sizes differ by at most one
    (the first ``n % parts`` are one longer), as ``numpy.array_split`` and ``torch.tensor_split`` cut."""
    base, extra = divmod(int(n), int(parts))
    bounds, start = [], 0
    for i in range(parts):
        stop = start + base + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def ring_allreduce_steps(data: np.ndarray) -> list[RingStep]:
    """Ring all-reduce of ``data`` (shape ``(P, N)``: row ``r`` is rank ``r``'s tensor), step by step (week 7).

    The tensor is cut into ``P`` chunks (:func:`chunk_bounds`). In reduce-scatter
    step ``s`` (``s = 0 .. P-2``) rank ``r`` sends chunk ``(r - s) mod P`` to rank
    ``(r + 1) mod P``, which adds it to its own copy; afterwards rank ``r`` holds
    the complete sum of chunk ``(r + 1) mod P``. In all-gather step ``s`` rank
    ``r`` sends chunk ``(r + 1 - s) mod P`` on, and the receiver overwrites its
    copy. All messages of a step travel at the same time. Returns the list of
    :class:`RingStep`, the starting state first; the last ``values`` hold the sum
    in every row. Each rank sends ``2 (P-1)`` messages (empty chunks included).
    """
    values = np.array(data, dtype=np.float64, copy=True)
    if values.ndim != 2 or values.shape[0] < 1:
        raise ValueError("data must have shape (P, N) with P >= 1: one row per rank")
    ranks, n = values.shape
    bounds = chunk_bounds(n, ranks)
    contributors = np.ones((ranks, ranks), dtype=np.int64)  # each rank's copy holds its own input only
    steps = [RingStep("start", 0, [], values.copy(), contributors.copy())]
    for phase in ("reduce-scatter", "all-gather"):
        for s in range(ranks - 1):
            offset = -s if phase == "reduce-scatter" else 1 - s
            sends = [(r, (r + 1) % ranks, (r + offset) % ranks) for r in range(ranks)]
            # every rank sends what it held *before* this step: take the payloads first
            payloads = [
                (src, dst, c, values[src, slice(*bounds[c])].copy(), contributors[src, c]) for src, dst, c in sends
            ]
            messages = []
            for src, dst, c, payload, count in payloads:
                cut = slice(*bounds[c])
                if phase == "reduce-scatter":
                    values[dst, cut] += payload
                    contributors[dst, c] += count
                else:
                    values[dst, cut] = payload
                    contributors[dst, c] = count
                messages.append(Message(src, dst, int(payload.size), c))
            steps.append(RingStep(phase, s, messages, values.copy(), contributors.copy()))
    return steps


# --------------------------------------------------------------------------- pipeline parallelism


@dataclass(frozen=True)
class PipelineOp:
    """One forward (``kind="F"``) or backward (``"B"``) pass of micro-batch ``micro`` on stage ``stage``."""

    stage: int
    micro: int
    kind: str
    start: float
    end: float


def gpipe_schedule(
    stages: int, micro_batches: int, forward_s: float = 1.0, backward_s: float = 2.0
) -> list[PipelineOp]:
    """The GPipe schedule: each stage runs the forwards of all micro-batches, then their backwards (week 7).

    A forward of micro-batch ``m`` on stage ``s`` needs its forward on stage
    ``s - 1``; a backward on stage ``s`` needs the backward on stage ``s + 1``
    (the last stage needs its own forward). Each op starts as soon as its input
    is there and its stage is free. Returns every op with its start and end time.
    """
    if stages < 1 or micro_batches < 1:
        raise ValueError("need stages >= 1 and micro_batches >= 1")
    done: dict[tuple[str, int, int], float] = {}
    free = [0.0] * stages
    ops = []
    for m in range(micro_batches):
        for s in range(stages):
            ready = done[("F", s - 1, m)] if s > 0 else 0.0
            start = max(ready, free[s])
            done[("F", s, m)] = free[s] = start + forward_s
            ops.append(PipelineOp(s, m, "F", start, start + forward_s))
    for m in reversed(range(micro_batches)):
        for s in reversed(range(stages)):
            ready = done[("B", s + 1, m)] if s < stages - 1 else done[("F", s, m)]
            start = max(ready, free[s])
            done[("B", s, m)] = free[s] = start + backward_s
            ops.append(PipelineOp(s, m, "B", start, start + backward_s))
    return ops


def bubble_fraction(ops: list[PipelineOp]) -> float:
    """Share of stage-time spent idle: ``1 - busy / (stages x makespan)`` (week 7)."""
    stages = 1 + max(op.stage for op in ops)
    makespan = max(op.end for op in ops) - min(op.start for op in ops)
    busy = sum(op.end - op.start for op in ops)
    return 1.0 - busy / (stages * makespan)


# --------------------------------------------------------------------------- synchronous vs asynchronous SGD


@dataclass
class LeastSquares:
    """A seeded least-squares problem, loss ``mean((X w - y)^2) / 2``, for the SGD simulations (week 7)."""

    features: int = 20
    samples: int = 2000
    noise: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        self.X = rng.standard_normal((self.samples, self.features))
        self.w_true = rng.standard_normal(self.features)
        self.y = self.X @ self.w_true + self.noise * rng.standard_normal(self.samples)

    def loss(self, w: np.ndarray) -> float:
        """Full-data loss ``mean((X w - y)^2) / 2``."""
        r = self.X @ w - self.y
        return float(r @ r / (2 * self.samples))

    def gradient(self, w: np.ndarray, rng: np.random.Generator, batch: int) -> np.ndarray:
        """Gradient of the loss on ``batch`` samples drawn at random: ``X_b^T (X_b w - y_b) / batch``."""
        idx = rng.integers(0, self.samples, size=batch)
        xb = self.X[idx]
        return xb.T @ (xb @ w - self.y[idx]) / batch


def worker_step_times(
    rng: np.random.Generator,
    steps: int,
    workers: int,
    mean_s: float = 1.0,
    jitter: float = 0.1,
    straggler_prob: float = 0.0,
    slowdown: float = 4.0,
) -> np.ndarray:
    """Seconds each worker takes for each of its gradient computations: ``(steps, workers)`` array (week 7).

    Each time is ``mean_s x (1 + jitter x |z|)`` with ``z`` standard normal, and
    with probability ``straggler_prob`` it is multiplied by ``slowdown`` (a
    straggler: a slow node, a noisy neighbour, a garbage collection).
    """
    times = mean_s * (1.0 + jitter * np.abs(rng.standard_normal((steps, workers))))
    slow = rng.random((steps, workers)) < straggler_prob
    return np.where(slow, times * slowdown, times)


@dataclass
class SGDRun:
    """Trace of a simulated SGD run: the wall time (s) and the full-data loss after each update, and
    the staleness of each applied gradient (updates between the read of the parameters and the write)."""

    name: str
    times_s: np.ndarray
    losses: np.ndarray
    staleness: np.ndarray
    idle_share: float = 0.0  # share of worker time spent waiting (synchronous SGD)


def sync_sgd(
    problem: LeastSquares, step_times: np.ndarray, lr: float, batch: int, comm_s: float = 0.0, seed: int = 1
) -> SGDRun:
    """Synchronous data-parallel SGD: every step all workers compute a gradient at the same parameters,
    the gradients are averaged (an all-reduce taking ``comm_s``), one update is applied (week 7).

    Step ``t`` lasts ``max_k step_times[t, k] + comm_s``: everyone waits for the slowest.
    """
    rng = np.random.default_rng(seed)
    steps, workers = step_times.shape
    w = np.zeros(problem.features)
    now, times, losses = 0.0, [0.0], [problem.loss(w)]
    for t in range(steps):
        grads = [problem.gradient(w, rng, batch) for _ in range(workers)]
        w = w - lr * np.mean(grads, axis=0)
        now += float(step_times[t].max()) + comm_s
        times.append(now)
        losses.append(problem.loss(w))
    busy = float(step_times.sum())
    wall = float(step_times.max(axis=1).sum())
    return SGDRun(
        "synchronous",
        np.array(times),
        np.array(losses),
        np.zeros(steps, dtype=np.int64),
        idle_share=1.0 - busy / (workers * wall) if wall > 0 else 0.0,
    )


def async_sgd(
    problem: LeastSquares,
    step_times: np.ndarray,
    lr: float,
    batch: int,
    comm_s: float = 0.0,
    staleness_aware: bool = False,
    seed: int = 1,
) -> SGDRun:
    """Asynchronous SGD through a parameter server: a worker reads the parameters, computes a gradient for
    ``step_times[i, k]`` seconds, and the server applies it the moment it arrives (week 7).

    Meanwhile other workers' gradients were applied: the gradient is ``staleness``
    updates old. ``staleness_aware=True`` divides the step by ``max(1, staleness)``
    (the lecture's ``lr = lr0 / staleness``). ``comm_s`` is added to every
    computation (push and pull). Every worker makes ``step_times.shape[0]``
    gradients; the run has ``steps x workers`` updates.
    """
    rng = np.random.default_rng(seed)
    steps, workers = step_times.shape
    w = np.zeros(problem.features)
    version = 0
    # each worker: (finish time, worker, its step index, parameters it read, version it read)
    events = [(float(step_times[0, k]) + comm_s, k, 0, w.copy(), 0) for k in range(workers)]
    heapq.heapify(events)
    times, losses, staleness = [0.0], [problem.loss(w)], []
    while events:
        now, k, i, w_read, read_version = heapq.heappop(events)
        stale = version - read_version
        step = lr / max(1, stale) if staleness_aware else lr
        w = w - step * problem.gradient(w_read, rng, batch)
        version += 1
        times.append(now)
        losses.append(problem.loss(w))
        staleness.append(stale)
        if i + 1 < steps:
            heapq.heappush(events, (now + float(step_times[i + 1, k]) + comm_s, k, i + 1, w.copy(), version))
    name = "asynchronous" + (", staleness-aware lr" if staleness_aware else "")
    return SGDRun(name, np.array(times), np.array(losses), np.array(staleness, dtype=np.int64))
