def mean_of_second_half(times):
    if len(times) < 2:
        raise ValueError("at least 2 timings needed")
    half = np.asarray(times, dtype=float)[(len(times) + 1) // 2:]
    return float(np.average(half))
