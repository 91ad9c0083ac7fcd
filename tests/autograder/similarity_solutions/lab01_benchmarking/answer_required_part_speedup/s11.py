import math


def required_part_speedup(part_fraction, current_total, target_total):
    # minutes (or seconds...) the non-improvable share keeps taking
    floor_time = (1 - part_fraction) * current_total
    if target_total > floor_time:
        speedup = part_fraction * current_total / (target_total - floor_time)
    else:
        speedup = math.inf
    return speedup
