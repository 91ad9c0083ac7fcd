import math


def amdahl_speedup(parallel_fraction, s):
    """
    Amdahl: S = 1 / ((1-p) + p/s).

    >>> amdahl_speedup(0.5, 2)
    1.3333333333333333
    """
    frac_serial = 1.0 - parallel_fraction
    if math.isinf(s):
        return 1.0 / frac_serial if frac_serial > 0 else math.inf
    return 1.0 / (frac_serial + parallel_fraction / s)
