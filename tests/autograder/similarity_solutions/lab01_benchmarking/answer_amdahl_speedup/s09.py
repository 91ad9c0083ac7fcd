def amdahl_speedup(parallel_fraction, s):
    p = parallel_fraction
    # an infinitely fast parallel part takes no time at all
    parallel_time = 0.0 if math.isinf(s) else p / s
    serial_time = 1 - p
    total = serial_time + parallel_time
    if total == 0:
        return math.inf
    return 1 / total
