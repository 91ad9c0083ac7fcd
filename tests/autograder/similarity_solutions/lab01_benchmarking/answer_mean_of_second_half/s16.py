import statistics


def mean_of_second_half(times):
    # less than 2 timings: no second half to average
    if len(times) <= 1:
        raise ValueError("too few timings")
    start = (len(times) + 1) // 2
    tail = [float(t) for t in times[start:]]
    return float(statistics.mean(tail))
