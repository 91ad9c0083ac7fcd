import math


def required_part_speedup(part_fraction, current_total, target_total):
    """Required speed-up of the part; math.inf when the target cannot be reached."""
    base = (1 - part_fraction) * current_total
    return (math.inf if target_total - base <= 0
            else part_fraction * current_total / (target_total - base))
