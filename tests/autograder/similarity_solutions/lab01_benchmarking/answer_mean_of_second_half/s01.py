def mean_of_second_half(times):
    """Mean of the second half of repeated timings (Lab 1, Part 2).

    ``times`` is a sequence (list, tuple or 1-D NumPy array) of n timings in call order.
    Return the mean of ``times[(n + 1) // 2:]`` as a Python ``float``: for odd n the
    middle timing is discarded too. Raise ``ValueError`` when n < 2.

    Examples: [10, 1, 2, 3] -> 2.5;  [9, 9, 5, 1, 3] -> 2.0
    """
    n = len(times)
    if n < 2:
        raise ValueError("need at least 2 timings")
    tail = times[(n + 1) // 2:]
    return sum(float(t) for t in tail) / len(tail)
