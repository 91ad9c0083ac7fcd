import time


def _median(values):
    ordered = sorted(values)
    n = len(ordered)
    middle = n // 2
    if n % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2.0
    return ordered[middle]


def median_time_s(fn, args, warmup, repeats):
    if warmup < 0 or repeats < 1:
        raise ValueError("warmup must be >= 0 and repeats >= 1")
    for _ in range(warmup):
        fn(*args)   # results thrown away: compilation, cold caches
    measured = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(*args)
        measured.append(time.perf_counter() - t)
    return float(_median(measured))
