import time


def _one_call_seconds(fn, args):
    begin = time.perf_counter()
    fn(*args)
    end = time.perf_counter()
    return end - begin


def median_time_s(fn, args, warmup, repeats):
    """Median time of fn(*args) in seconds."""
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if warmup < 0:
        raise ValueError("warmup cannot be negative")
    for _ in range(warmup):
        fn(*args)
    durations = sorted(_one_call_seconds(fn, args) for _ in range(repeats))
    mid = len(durations) // 2
    if len(durations) % 2 == 1:
        return float(durations[mid])
    return (durations[mid - 1] + durations[mid]) / 2
