import math


def required_part_speedup(part_fraction, current_total, target_total):
    """
    Turn Amdahl around: which speed-up must the part get?

    The untouched share (1 - f) * T still runs at the old speed, so the part has
    target_total - (1 - f) * T left; if that is zero or negative no speed-up is enough.
    """
    keep = (1 - part_fraction) * current_total
    left_over = target_total - keep
    if left_over > 0:
        return (part_fraction * current_total) / left_over
    return math.inf
