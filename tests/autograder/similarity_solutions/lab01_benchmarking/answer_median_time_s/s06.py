import time
from statistics import median


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call fn(*args) (Lab 1, Part 8)."""
    # YOUR CODE HERE
    if warmup < 0:
        raise ValueError("warmup < 0")
    if repeats < 1:
        raise ValueError("repeats < 1")
    i = 0
    while i < warmup:
        fn(*args)
        i += 1
    results = []
    while len(results) < repeats:
        before = time.perf_counter()
        fn(*args)
        after = time.perf_counter()
        results.append(after - before)
    return float(median(results))
