"""Domains of a graded function's arguments, as ``lab.toml`` writes them: checked, then sampled.

A lab's ``[graded_functions.NAME]`` table gives ``args``, one spec per
positional argument. A spec is a table with exactly one kind:

==============================  =============================================
``{uniform = [lo, hi]}``        a float, lo <= x <= hi
``{log_uniform = [lo, hi]}``    a float whose logarithm is uniform (0 < lo < hi)
``{integer = [lo, hi]}``        an int, lo <= n < hi (as ``random.randrange``)
``{choice = [a, b, ...]}``      one of the values
``{value = x}``                 always x
``{list = SPEC, length = n}``   a list of n values drawn from SPEC; ``length``
                                may be ``[lo, hi]`` (lo <= n < hi)
``{tuple = [SPEC, ...]}``       a tuple, one value per spec
==============================  =============================================

Tests draw arguments with :func:`sample` and a seeded ``random.Random``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

KINDS = ("uniform", "log_uniform", "integer", "choice", "value", "list", "tuple")


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _bounds(spec: Mapping, kind: str, where: str, *, integers: bool = False) -> list[str]:
    pair = spec[kind]
    ok = isinstance(pair, list) and len(pair) == 2 and all(_is_number(x) for x in pair) and pair[0] < pair[1]
    if ok and integers:
        ok = all(isinstance(x, int) for x in pair)
    if ok and kind == "log_uniform":
        ok = pair[0] > 0
    if not ok:
        need = (
            "two integers lo < hi"
            if integers
            else "two numbers lo < hi" + (", lo > 0" if kind == "log_uniform" else "")
        )
        return [f"{where}.{kind}: expected {need}, got {pair!r}"]
    return []


def problems(spec: object, where: str) -> list[str]:
    """Every problem of one argument spec, each naming its key (``where`` is the key of the spec itself)."""
    if not isinstance(spec, Mapping):
        return [f"{where}: expected a table such as {{uniform = [0, 1]}}, got {spec!r}"]
    kinds = [k for k in spec if k in KINDS]
    extra = sorted(set(spec) - set(KINDS) - ({"length"} if "list" in spec else set()))
    if extra:
        return [f"{where}: unknown key(s) {extra}; a spec has one of {list(KINDS)}"]
    if len(kinds) != 1:
        return [f"{where}: expected exactly one of {list(KINDS)}, got {sorted(spec) or 'none'}"]
    kind = kinds[0]
    if kind in ("uniform", "log_uniform"):
        return _bounds(spec, kind, where)
    if kind == "integer":
        return _bounds(spec, kind, where, integers=True)
    if kind == "choice":
        values = spec[kind]
        return [] if isinstance(values, list) and values else [f"{where}.choice: expected a non-empty list"]
    if kind == "value":
        return []
    if kind == "tuple":
        parts = spec[kind]
        if not isinstance(parts, list) or not parts:
            return [f"{where}.tuple: expected a non-empty list of specs"]
        return [p for i, part in enumerate(parts) for p in problems(part, f"{where}.tuple[{i}]")]
    found = problems(spec["list"], f"{where}.list")
    length = spec.get("length")
    if isinstance(length, int) and not isinstance(length, bool) and length >= 0:
        return found
    if isinstance(length, list) and len(length) == 2 and all(isinstance(n, int) for n in length):
        return found if 0 <= length[0] < length[1] else [*found, f"{where}.length: expected 0 <= lo < hi"]
    return [*found, f"{where}.length: expected a whole number or [lo, hi], got {length!r}"]


def sample(spec: Mapping, rng: random.Random) -> Any:
    """One value from the domain ``spec`` (already checked by :func:`problems`)."""
    if "uniform" in spec:
        return rng.uniform(*spec["uniform"])
    if "log_uniform" in spec:
        lo, hi = spec["log_uniform"]
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))
    if "integer" in spec:
        return rng.randrange(*spec["integer"])
    if "choice" in spec:
        return rng.choice(spec["choice"])
    if "value" in spec:
        return spec["value"]
    if "tuple" in spec:
        return tuple(sample(part, rng) for part in spec["tuple"])
    length = spec["length"]
    n = rng.randrange(*length) if isinstance(length, list) else length
    return [sample(spec["list"], rng) for _ in range(n)]


def sample_args(specs: Sequence[Mapping], rng: random.Random) -> tuple:
    """Positional arguments for one call: one value per spec."""
    return tuple(sample(spec, rng) for spec in specs)
