def required_part_speedup(part_fraction, current_total, target_total):
    untouchable = current_total * (1 - part_fraction)
    if untouchable >= target_total:  # target not reachable
        return float("inf")
    improvable = current_total * part_fraction
    allowed = target_total - untouchable
    return improvable / allowed
