def mean_of_second_half(times):
    """Average of the timings after the warm-up half."""
    n = len(times)
    if n < 2:
        raise ValueError("need at least 2 timings")
    h = (n + 1) // 2
    return sum(float(times[i]) for i in range(h, n)) / (n - h)
