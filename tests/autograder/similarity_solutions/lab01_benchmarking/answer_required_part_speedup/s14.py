def required_part_speedup(part_fraction, current_total, target_total):
    part_now = part_fraction * current_total
    rest_now = (1 - part_fraction) * current_total
    # no finite speed-up helps if the rest alone already uses up the budget
    if target_total <= rest_now:
        return math.inf
    part_later = target_total - rest_now
    return part_now / part_later
