def mean_of_second_half(times):
    """Warm-up rule from Part 2: drop the first half (rounded up), average the rest."""
    values = list(times)
    if len(values) < 2:
        raise ValueError("need at least two timings")
    return float(np.mean(values[(len(values) + 1) // 2:], dtype=np.float64))
