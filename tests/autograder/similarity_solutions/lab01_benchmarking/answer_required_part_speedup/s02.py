import math


def required_part_speedup(part_fraction, current_total, target_total):
    rest = (1 - part_fraction) * current_total      # time we cannot touch
    budget = target_total - rest                     # time left for the part
    if budget <= 0:
        return math.inf
    part_time = part_fraction * current_total
    return part_time / budget
