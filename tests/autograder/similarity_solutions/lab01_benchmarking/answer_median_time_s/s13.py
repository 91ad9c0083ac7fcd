import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
    """Median runtime (s) of fn(*args)."""
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats >= 1 and warmup >= 0 required")
    for _ in range(warmup):
        _ = fn(*args)
    stamps = np.zeros((repeats, 2))
    for r in range(repeats):
        stamps[r, 0] = time.perf_counter()
        fn(*args)
        stamps[r, 1] = time.perf_counter()
    return float(np.median(stamps[:, 1] - stamps[:, 0]))
