def mean_of_second_half(times):
    try:
        n = len(times)
    except TypeError:
        raise ValueError("times must be a sequence of timings") from None
    if n < 2:
        raise ValueError(f"mean_of_second_half needs 2 or more timings (got {n})")
    warm = times[(n + 1) // 2:]
    mean = 0.0
    for t in warm:
        mean += float(t) / len(warm)
    return float(mean)
