def required_part_speedup(part_fraction, current_total, target_total):
    """How much faster must the part get so the total becomes target_total?"""
    f, T, T_new = part_fraction, current_total, target_total
    serial = (1 - f) * T
    if T_new > serial:
        return f * T / (T_new - serial)
    # the other part alone already needs at least the whole target
    return float("inf")
