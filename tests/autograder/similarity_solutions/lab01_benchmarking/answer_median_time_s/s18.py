import time


def median_time_s(fn, args, warmup, repeats):
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be positive and warmup non-negative")

    for _ in range(warmup):
        fn(*args)

    timings = []
    for _ in range(repeats):
        t = -time.perf_counter()
        fn(*args)
        t += time.perf_counter()
        timings.append(t)

    timings = sorted(timings)
    # median: middle element, or mean of the two middle ones
    if repeats % 2:
        return float(timings[repeats // 2])
    a, b = timings[repeats // 2 - 1], timings[repeats // 2]
    return float((a + b) / 2)
