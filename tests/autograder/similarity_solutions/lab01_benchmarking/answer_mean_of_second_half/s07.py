def mean_of_second_half(times):
    n = len(times)
    if n < 2:
        raise ValueError("mean_of_second_half: n must be at least 2")
    first_kept = (n + 1) // 2  # for odd n the middle one goes too
    acc = 0.0
    for i in range(first_kept, n):
        acc += float(times[i])
    return acc / (n - first_kept)
