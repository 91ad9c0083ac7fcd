import numpy as np


def required_part_speedup(part_fraction, current_total, target_total):
    """Required speed-up of the part (np.inf if impossible)."""
    old_part_time = part_fraction * current_total
    other_time = (1 - part_fraction) * current_total
    new_part_time = target_total - other_time
    if new_part_time <= 0:
        return np.inf
    return old_part_time / new_part_time
