def required_part_speedup(part_fraction, current_total, target_total):
    # Quiz check: f = 0.5, T = 15, T' = 9 -> 7.5 / (9 - 7.5) = 5
    serial_time = current_total * (1 - part_fraction)
    if not target_total > serial_time:
        return float('inf')
    return current_total * part_fraction / (target_total - serial_time)
