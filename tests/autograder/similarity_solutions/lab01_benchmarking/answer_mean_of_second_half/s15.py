def _mean(values):
    """Arithmetic mean of a non-empty list of numbers, as a float."""
    total = 0.0
    for v in values:
        total += float(v)
    return total / len(values)


def mean_of_second_half(times):
    n = len(times)
    if n < 2:
        raise ValueError("mean_of_second_half requires n >= 2")
    return _mean(list(times)[(n + 1) // 2:])
