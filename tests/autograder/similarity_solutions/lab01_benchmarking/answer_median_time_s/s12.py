import statistics
import time


def median_time_s(fn, args, warmup, repeats):
    # check the arguments before calling fn at all
    if warmup < 0 or repeats < 1:
        raise ValueError("median_time_s needs warmup >= 0 and repeats >= 1")
    for _ in range(warmup):
        fn(*args)
    per_call_seconds = []
    for _ in range(repeats):
        t_before = time.perf_counter()
        fn(*args)
        t_after = time.perf_counter()
        per_call_seconds.append(t_after - t_before)
    med = statistics.median(per_call_seconds)
    return float(med)
