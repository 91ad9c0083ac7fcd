import math


def amdahl_speedup(parallel_fraction, s):
    new_time = (1 - parallel_fraction) + parallel_fraction / s
    if new_time == 0:
        # p = 1 and s = inf: nothing left to run
        return math.inf
    return 1 / new_time
