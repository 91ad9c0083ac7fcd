import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call fn(*args), after `warmup` untimed calls, over `repeats` timed ones.

    The median, not the mean, so one call slowed down by another program does not move the result.
    """
    if warmup < 0:
        raise ValueError("warmup must be non-negative")
    if repeats < 1:
        raise ValueError("need at least one timed repeat")
    n_calls = 0
    for _ in range(warmup):
        fn(*args)
        n_calls += 1
    ts = []
    for _ in range(repeats):
        start_s = time.perf_counter()
        fn(*args)
        stop_s = time.perf_counter()
        ts.append(stop_s - start_s)
        n_calls += 1
    assert n_calls == warmup + repeats
    return np.median(np.asarray(ts)).item()
