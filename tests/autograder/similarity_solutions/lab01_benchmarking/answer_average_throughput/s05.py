import math


def average_throughput(work, times):
    """n * W / sum(t_i): all the work over all the time."""
    n = len(times)
    total_seconds = math.fsum(float(t) for t in times)
    return float(n * work) / total_seconds
