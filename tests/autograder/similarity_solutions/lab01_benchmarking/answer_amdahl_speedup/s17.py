import math


def amdahl_speedup(parallel_fraction, s):
    """Overall speed-up when fraction `parallel_fraction` of the run time becomes s times faster."""
    unaffected = 1 - parallel_fraction
    accelerated = parallel_fraction / s
    if unaffected == 0 and accelerated == 0:
        return math.inf  # everything is parallel and infinitely fast
    return 1 / (unaffected + accelerated)
