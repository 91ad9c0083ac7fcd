def mean_of_second_half(times):
    count = len(times)
    if count < 2:
        raise ValueError(f"expected at least 2 timings, got {count}")
    skip = math.ceil(count / 2)  # same as (count + 1) // 2
    kept = times[skip:]
    return float(np.sum(kept, dtype=np.float64)) / len(kept)
