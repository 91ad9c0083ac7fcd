def required_part_speedup(part_fraction, current_total, target_total):
    """Speed-up factor needed for the part (math.inf if no finite factor works)."""
    other = (1 - part_fraction) * current_total
    new_part = target_total - other
    if new_part > 0:
        old_part = part_fraction * current_total
        return old_part / new_part
    else:
        return math.inf
