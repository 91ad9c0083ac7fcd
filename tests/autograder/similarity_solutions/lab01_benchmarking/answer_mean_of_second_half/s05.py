import math


def mean_of_second_half(times):
    # accurate sum of the warm half with math.fsum
    n = len(times)
    if n < 2:
        raise ValueError("need n >= 2")
    warm = [float(t) for t in times[(n + 1) // 2:]]
    return math.fsum(warm) / len(warm)
