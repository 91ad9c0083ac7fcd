import math


def required_part_speedup(part_fraction: float, current_total: float, target_total: float) -> float:
    """Speed-up a part needs so that the whole takes ``target_total``."""
    remaining = (1 - part_fraction) * current_total
    slack = target_total - remaining
    return part_fraction * current_total / slack if slack > 0 else math.inf
