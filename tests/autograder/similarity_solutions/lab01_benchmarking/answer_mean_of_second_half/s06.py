from functools import reduce


def mean_of_second_half(times):
    """Mean of times[(n + 1) // 2:]; ValueError for fewer than 2 timings."""
    n = len(times)
    if n < 2:
        raise ValueError("not enough timings")
    second = times[(n + 1) // 2:]
    s = reduce(lambda acc, t: acc + float(t), second, 0.0)
    return s / len(second)
