import time
import statistics as stats


def median_time_s(fn, args, warmup, repeats):
    """Timer: untimed warm-up, then per-call perf_counter timings, median of them."""
    bad = []
    if repeats < 1:
        bad.append(f"repeats={repeats} (need >= 1)")
    if warmup < 0:
        bad.append(f"warmup={warmup} (need >= 0)")
    if bad:
        raise ValueError("; ".join(bad))

    for _ in range(warmup):
        fn(*args)

    durations = [0.0] * repeats
    for i in range(repeats):
        t_in = time.perf_counter()
        fn(*args)
        t_out = time.perf_counter()
        durations[i] = t_out - t_in
    return float(stats.median(durations))
