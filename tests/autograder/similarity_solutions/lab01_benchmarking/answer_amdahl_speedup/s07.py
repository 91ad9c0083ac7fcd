import math


def _relative_time(p, s):
    """Run time after the speed-up, as a fraction of the old run time."""
    if s == math.inf:
        return 1.0 - p
    return (1.0 - p) + p / s


def amdahl_speedup(parallel_fraction, s):
    t = _relative_time(parallel_fraction, s)
    if t == 0.0:
        return math.inf
    return 1.0 / t
