def mean_of_second_half(times):
    """The second half has n // 2 elements: the last n // 2 timings."""
    n = len(times)
    if n < 2:
        raise ValueError("n < 2")
    m = n // 2
    last = np.asarray(times[n - m:], dtype=np.float64)
    return float(last.sum()) / m
