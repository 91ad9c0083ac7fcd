import math


def required_part_speedup(part_fraction, current_total, target_total):
    """Speed-up a part needs so that the whole takes ``target_total``.

    Quiz: required_part_speedup(0.5, 15, 9) == 5.0
    """
    serial = (1 - part_fraction) * current_total
    if target_total - serial <= 0:
        return math.inf
    parallel_now = part_fraction * current_total
    parallel_allowed = target_total - serial
    return parallel_now / parallel_allowed
