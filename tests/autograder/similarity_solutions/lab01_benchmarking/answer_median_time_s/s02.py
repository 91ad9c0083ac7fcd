import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")

    # warm-up: JIT compilation, caches, clocks -- not timed
    for _ in range(warmup):
        fn(*args)

    samples = np.empty(repeats, dtype=np.float64)
    for k in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        t1 = time.perf_counter()
        samples[k] = t1 - t0
    return float(np.median(samples))
