def amdahl_speedup(parallel_fraction, s):
    if parallel_fraction == 1:
        # whole program is sped up: overall speed-up is just s (inf stays inf)
        return float(s)
    return 1.0 / ((1.0 - parallel_fraction) + parallel_fraction / s)
