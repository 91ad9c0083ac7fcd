def required_part_speedup(part_fraction, current_total, target_total):
    """Speed-up a part needs so that the whole takes ``target_total`` (Lab 1, Part 6)."""
    # YOUR CODE HERE
    INF = float("inf")
    t_other = (1 - part_fraction) * current_total
    t_part = part_fraction * current_total
    t_part_target = target_total - t_other
    if t_part_target <= 0:
        return INF
    return t_part / t_part_target
