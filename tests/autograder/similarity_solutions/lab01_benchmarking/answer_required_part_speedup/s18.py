import math


def required_part_speedup(part_fraction, current_total, target_total):
    T = current_total
    f = part_fraction
    lower_limit = (1 - f) * T   # total time if the part took no time at all
    return f * T / (target_total - lower_limit) if target_total > lower_limit else math.inf
