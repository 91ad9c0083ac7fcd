import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call fn(*args), after `warmup` untimed calls, over `repeats` timed ones (Lab 1, Part 8).

    Exactly warmup + repeats calls; each timed call is timed on its own with time.perf_counter().
    Returns a Python float. Raises ValueError if repeats < 1 or warmup < 0.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    for _w in range(warmup):
        fn(*args)
    times = []
    for _r in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    times = np.sort(np.array(times))
    m = repeats // 2
    if repeats % 2 == 0:
        return float(0.5 * (times[m - 1] + times[m]))
    return float(times[m])
