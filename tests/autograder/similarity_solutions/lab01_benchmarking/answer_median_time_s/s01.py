import statistics
import time


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call fn(*args), after `warmup` untimed calls, over `repeats` timed ones (Lab 1, Part 8).

    Exactly warmup + repeats calls; each timed call is timed on its own with time.perf_counter().
    Returns a Python float. Raises ValueError if repeats < 1 or warmup < 0.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError("need repeats >= 1 and warmup >= 0")
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return float(statistics.median(times))
