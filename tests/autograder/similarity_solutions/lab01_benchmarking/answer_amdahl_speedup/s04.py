import math


def amdahl_speedup(parallel_fraction, s):
    serial_part = 1 - parallel_fraction
    sped_up_part = parallel_fraction / s   # 0 when s is infinite
    remaining = serial_part + sped_up_part
    return 1 / remaining if remaining > 0 else math.inf
