import math


def amdahl_speedup(parallel_fraction, s):
    """S(p, s) per Amdahl. Handles s = inf (limit 1/(1-p)) and p = 1 with s = inf (inf)."""
    if s != math.inf:
        return 1 / ((1 - parallel_fraction) + parallel_fraction / s)
    limit_denominator = 1 - parallel_fraction
    if limit_denominator == 0:
        return math.inf
    return 1 / limit_denominator
