def mean_of_second_half(times):
    n = len(times)
    if n >= 2:
        # the last n // 2 timings, newest first (order does not matter for a mean)
        warm = [float(t) for t in reversed(times)][: n // 2]
        return sum(warm) / len(warm)
    raise ValueError("a second half needs at least two timings")
