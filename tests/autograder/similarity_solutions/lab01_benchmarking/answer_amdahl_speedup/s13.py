def amdahl_speedup(parallel_fraction, s):
    # time of the old program = 1, time of the new one = (1-p) + p/s
    old_time = 1.0
    new_time = (1 - parallel_fraction) * old_time + parallel_fraction * old_time / s
    try:
        return old_time / new_time
    except ZeroDivisionError:
        return math.inf
