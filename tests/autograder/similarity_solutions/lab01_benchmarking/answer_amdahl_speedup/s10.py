import math


def amdahl_speedup(parallel_fraction, s):
    """Speed-up of a whole program when a fraction of it gets s times faster."""
    terms = [1 - parallel_fraction, parallel_fraction / s]
    time_after = math.fsum(terms)
    return math.inf if time_after == 0 else 1 / time_after
