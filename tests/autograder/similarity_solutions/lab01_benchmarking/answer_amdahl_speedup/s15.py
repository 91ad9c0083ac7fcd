def amdahl_speedup(parallel_fraction, s):
    """Amdahl's law: overall speed-up 1 / ((1 - p) + p / s) (Lab 1, Part 6)."""
    # YOUR CODE HERE
    serial = 1 - parallel_fraction
    if s == float("inf"):
        if serial == 0:
            return float("inf")
        return 1 / serial
    return 1 / (serial + parallel_fraction / s)
