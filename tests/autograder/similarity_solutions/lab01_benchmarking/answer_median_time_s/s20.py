import time
import statistics


def time_one(fn, args):
    """Seconds taken by a single call fn(*args)."""
    t_begin = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t_begin


def median_time_s(fn, args, warmup, repeats):
    """Median seconds per call over `repeats` timed calls after `warmup` untimed ones."""
    if warmup < 0:
        raise ValueError("warmup must be >= 0")
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    for _ in range(warmup):
        fn(*args)
    seconds = [time_one(fn, args) for _ in range(repeats)]
    return float(statistics.median(seconds))
