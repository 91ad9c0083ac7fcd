def required_part_speedup(part_fraction, current_total, target_total):
    """Speed-up a part needs so that the whole takes ``target_total`` (Lab 1, Part 6).

    part_fraction: f, the fraction of ``current_total`` (T) the part takes now.
    Returns f*T / (target_total - (1 - f)*T), or math.inf when
    target_total <= (1 - f)*T (no finite speed-up of the part is enough).
    Quiz: required_part_speedup(0.5, 15, 9) == 5.0
    """
    untouched = (1 - part_fraction) * current_total
    if target_total <= untouched:
        return math.inf
    return part_fraction * current_total / (target_total - untouched)
