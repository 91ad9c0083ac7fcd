"""Requests, sequences and latency figures for the LLM-serving lab (week 11, lab09).

The lab writes the server (block allocator, paged KV cache, scheduler, serving
loop); this module holds only the records they pass around and the workload:

* :class:`OutOfBlocksError`: what a block allocator raises when no block is free.
* :class:`Request`: what a client sends (prompt token ids, how many tokens to
  generate) and when it arrives, in seconds on the simulated clock.
* :class:`Sequence`: a request being served: its generated tokens, its block
  table and how many of its tokens have keys and values in the cache.
* :class:`ScheduledBatch`: what one scheduler step decided.
* :class:`RequestStats`: one request's latencies.
* :func:`poisson_requests`: a seeded workload with Poisson arrivals.
* :func:`latency_percentiles`: p50 / p95 / p99 of a list of numbers.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "OutOfBlocksError",
    "Request",
    "RequestStats",
    "ScheduledBatch",
    "Sequence",
    "latency_percentiles",
    "poisson_requests",
]


class OutOfBlocksError(RuntimeError):
    """The KV cache has fewer free blocks than asked for (lab09's ``BlockAllocator`` raises it).

    A ``RuntimeError``, not a ``MemoryError``: the machine has memory left, the
    cache's pool of blocks does not (and graders read ``MemoryError`` as the
    sandbox's memory limit).
    """


@dataclass(frozen=True)
class Request:
    """A client's request: ``prompt`` token ids, ``max_new_tokens`` to generate, ``arrival`` time in seconds."""

    request_id: int
    prompt: tuple[int, ...]
    max_new_tokens: int
    arrival: float = 0.0


@dataclass
class Sequence:
    """A request being served (lab09).

    ``tokens`` is the prompt followed by the ``output`` generated so far;
    ``blocks`` is the block table (block ids, in position order); the keys and
    values of the first ``num_cached`` tokens are in the cache. ``first_token_time``
    and ``finish_time`` are read on the simulated clock.
    """

    seq_id: int
    prompt: list[int]
    max_new_tokens: int
    arrival: float = 0.0
    output: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    num_cached: int = 0
    first_token_time: float | None = None
    finish_time: float | None = None

    @classmethod
    def from_request(cls, request: Request) -> Sequence:
        return cls(request.request_id, list(request.prompt), request.max_new_tokens, request.arrival)

    @property
    def tokens(self) -> list[int]:
        return self.prompt + self.output

    @property
    def done(self) -> bool:
        return len(self.output) >= self.max_new_tokens


@dataclass
class ScheduledBatch:
    """One scheduler step: sequences to prefill, sequences to decode by one token, sequences preempted."""

    prefill: list[Sequence] = field(default_factory=list)
    decode: list[Sequence] = field(default_factory=list)
    preempted: list[Sequence] = field(default_factory=list)


@dataclass(frozen=True)
class RequestStats:
    """One served request, in seconds: time to first token, time per output token after it, end to end."""

    request_id: int
    ttft: float
    tpot: float
    e2e: float
    output: tuple[int, ...]


def poisson_requests(
    n: int,
    rate: float,
    prompt_lengths: tuple[int, int],
    output_lengths: tuple[int, int],
    vocab_size: int,
    seed: int = 0,
) -> list[Request]:
    """``n`` requests arriving as a Poisson process of ``rate`` requests per second (seeded).

    Gaps between arrivals are exponential with mean ``1 / rate``; prompt and
    output lengths are uniform integers in the given inclusive ranges; prompt
    tokens are uniform in ``range(vocab_size)``.
    """
    if n < 0 or rate <= 0 or vocab_size < 1:
        raise ValueError(f"need n >= 0, rate > 0 and vocab_size >= 1, got n={n}, rate={rate}, vocab={vocab_size}")
    for name, (low, high) in (("prompt_lengths", prompt_lengths), ("output_lengths", output_lengths)):
        if not 1 <= low <= high:
            raise ValueError(f"{name} must be (low, high) with 1 <= low <= high, got {(low, high)}")
    rng = random.Random(seed)
    requests, clock = [], 0.0
    for i in range(n):
        clock += rng.expovariate(rate)
        prompt = tuple(rng.randrange(vocab_size) for _ in range(rng.randint(*prompt_lengths)))
        requests.append(Request(i, prompt, rng.randint(*output_lengths), clock))
    return requests


def latency_percentiles(values: list[float]) -> dict[str, float]:
    """``{"p50", "p95", "p99"}`` of ``values`` (linear interpolation, as ``numpy.percentile``); NaN when empty."""
    if not values:
        return {"p50": math.nan, "p95": math.nan, "p99": math.nan}
    p50, p95, p99 = np.percentile(np.asarray(values, dtype=float), [50, 95, 99])
    return {"p50": float(p50), "p95": float(p95), "p99": float(p99)}
