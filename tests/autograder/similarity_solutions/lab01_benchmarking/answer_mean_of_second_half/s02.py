def mean_of_second_half(times):
    arr = np.asarray(times, dtype=np.float64)
    if arr.size < 2:
        raise ValueError(f"mean_of_second_half needs at least 2 timings, got {arr.size}")
    start = (arr.size + 1) // 2
    return float(arr[start:].mean())
