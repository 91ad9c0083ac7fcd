def amdahl_speedup(parallel_fraction, s):
    """Amdahl's law: overall speed-up 1 / ((1 - p) + p / s) (Lab 1, Part 6).

    parallel_fraction: p in [0, 1], the fraction of run time that is sped up;
    s: speed-up of that fraction (s = math.inf gives the limit 1 / (1 - p), which is
    math.inf when p = 1).
    """
    p = parallel_fraction
    if math.isinf(s):
        # limit s -> inf
        return math.inf if p == 1 else 1 / (1 - p)
    return 1 / ((1 - p) + p / s)
