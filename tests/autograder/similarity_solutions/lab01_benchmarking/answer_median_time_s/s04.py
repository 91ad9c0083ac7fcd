import time


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call, warmup + repeats calls in all."""
    if not (repeats >= 1 and warmup >= 0):
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    timings = []
    # one loop: the first `warmup` iterations are not timed
    for call in range(warmup + repeats):
        if call < warmup:
            fn(*args)
            continue
        tic = time.perf_counter()
        fn(*args)
        toc = time.perf_counter()
        timings.append(toc - tic)
    timings.sort()
    n = len(timings)
    half = n // 2
    return float(timings[half]) if n % 2 else float((timings[half - 1] + timings[half]) / 2)
