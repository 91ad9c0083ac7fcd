def _time_left_for_part(f, total, target):
    """Time the part may still take once the untouched (1 - f) share has run."""
    return target - (1 - f) * total


def required_part_speedup(part_fraction, current_total, target_total):
    available = _time_left_for_part(part_fraction, current_total, target_total)
    if available <= 0:
        return math.inf
    return part_fraction * current_total / available
