def amdahl_speedup(parallel_fraction, s):
    """Amdahl's law: overall speed-up 1 / ((1 - p) + p / s)."""
    infinite = float("inf")
    if s == infinite:
        if parallel_fraction == 1:
            return infinite
        return 1 / (1 - parallel_fraction)
    denominator = (1 - parallel_fraction) + parallel_fraction / s
    return 1 / denominator
