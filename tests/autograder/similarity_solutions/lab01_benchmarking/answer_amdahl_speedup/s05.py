def amdahl_speedup(parallel_fraction, s):
    """S(p, s) = 1 / ((1 - p) + p/s); the s = inf limit is 1/(1-p)."""
    if parallel_fraction == 1 and s == math.inf:
        return math.inf
    return 1 / ((1 - parallel_fraction) + parallel_fraction / s)
