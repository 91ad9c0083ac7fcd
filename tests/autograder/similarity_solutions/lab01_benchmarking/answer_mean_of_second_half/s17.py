def mean_of_second_half(times):
    n = len(times)
    if n < 2:
        raise ValueError("cannot take the second half of fewer than 2 timings")
    # walk back from the end over the n // 2 warm timings
    i = n - 1
    total, k = 0.0, 0
    while i >= (n + 1) // 2:
        total += float(times[i])
        k += 1
        i -= 1
    return total / k
