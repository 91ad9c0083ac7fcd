import numpy as np


def required_part_speedup(part_fraction, current_total, target_total):
    # s_part = f T / (T' - (1 - f) T)
    non_part = (1 - part_fraction) * current_total
    if target_total <= non_part:
        return float(np.inf)
    return float(part_fraction * current_total / (target_total - non_part))
