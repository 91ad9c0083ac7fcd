import statistics
import time


def median_time_s(fn, args, warmup, repeats):
    if warmup < 0 or repeats < 1:
        raise ValueError("warmup must be >= 0, repeats >= 1")

    def run():
        return fn(*args)

    for _ in range(warmup):
        run()

    def seconds_for_one_call():
        t_0 = time.perf_counter()
        run()
        return time.perf_counter() - t_0

    return float(statistics.median(seconds_for_one_call() for _ in range(repeats)))
