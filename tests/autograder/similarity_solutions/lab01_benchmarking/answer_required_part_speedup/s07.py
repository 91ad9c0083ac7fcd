import math


def required_part_speedup(part_fraction, current_total, target_total):
    """Speed-up s_part = f*T / (T' - (1-f)*T); inf when T' <= (1-f)*T."""
    unchanged = (1 - part_fraction) * current_total
    impossible = target_total <= unchanged
    if impossible:
        return math.inf
    else:
        needed = part_fraction * current_total / (target_total - unchanged)
        return needed
