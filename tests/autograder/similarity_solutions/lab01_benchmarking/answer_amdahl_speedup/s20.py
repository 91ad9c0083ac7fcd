from math import inf, isinf


def amdahl_speedup(parallel_fraction, s):
    # Amdahl's law, with the s -> infinity limit done by hand
    if isinf(s):
        serial = 1 - parallel_fraction
        return inf if serial == 0 else 1 / serial
    return 1 / (1 - parallel_fraction + parallel_fraction / s)
