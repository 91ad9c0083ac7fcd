import math


def amdahl_speedup(parallel_fraction: float, s: float) -> float:
    """Amdahl's law (s may be math.inf)."""
    p = float(parallel_fraction)
    denom = (1.0 - p) + p / s
    if denom <= 0.0:
        return math.inf
    return 1.0 / denom
