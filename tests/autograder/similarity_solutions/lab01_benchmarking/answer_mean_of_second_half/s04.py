def mean_of_second_half(times):
    n = len(times)
    if n < 2:
        raise ValueError("at least two timings are required")
    h = (n + 1) // 2
    total = 0.0
    count = 0
    for t in times[h:]:
        total += float(t)
        count += 1
    return total / count
