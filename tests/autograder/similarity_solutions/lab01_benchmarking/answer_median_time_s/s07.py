import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
    """Warm up, then time each call separately and return the median (float seconds)."""
    if repeats < 1 or warmup < 0:
        raise ValueError(f"bad arguments: warmup={warmup}, repeats={repeats}")
    clock = time.perf_counter
    for _ in range(warmup):
        fn(*args)

    def timed_call():
        start = clock()
        fn(*args)
        return clock() - start

    per_call = [timed_call() for _ in range(repeats)]
    return float(np.percentile(per_call, 50))
