def amdahl_speedup(parallel_fraction, s):
    inf = math.inf
    t_serial = 1.0 - parallel_fraction
    t_parallel = parallel_fraction / s
    t_total = t_serial + t_parallel
    speedup = inf if t_total == 0 else 1.0 / t_total
    return speedup
