import math


def required_part_speedup(part_fraction, current_total, target_total):
    fixed_time = (1 - part_fraction) * current_total
    return math.inf if target_total <= fixed_time else (part_fraction * current_total) / (target_total - fixed_time)
