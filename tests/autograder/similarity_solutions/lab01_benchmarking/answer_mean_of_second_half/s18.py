def mean_of_second_half(times):
    """Mean of times[(n + 1) // 2:] as a Python float; ValueError if n < 2."""
    data = np.asarray(times, dtype=np.float64)
    n = data.shape[0]
    if n < 2:
        raise ValueError("need n >= 2 timings")
    h = (n + 1) // 2
    return float(np.sum(data[h:]) / (n - h))
