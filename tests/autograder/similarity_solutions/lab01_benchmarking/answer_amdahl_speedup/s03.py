def amdahl_speedup(parallel_fraction, s):
    """Overall speed-up by Amdahl's law."""
    try:
        return 1.0 / ((1.0 - parallel_fraction) + parallel_fraction / s)
    except ZeroDivisionError:
        return float("inf")
