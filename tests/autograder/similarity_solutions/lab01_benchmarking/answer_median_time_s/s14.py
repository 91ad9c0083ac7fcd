import time


def median_time_s(fn, args, warmup, repeats):
    """Median seconds of one call; ValueError if repeats < 1 or warmup < 0."""
    if repeats < 1:
        raise ValueError("repeats < 1")
    if warmup < 0:
        raise ValueError("warmup < 0")
    list(map(lambda _: fn(*args), range(warmup)))  # untimed warm-up calls

    def measure(_):
        t0 = time.perf_counter()
        fn(*args)
        return time.perf_counter() - t0

    xs = sorted(map(measure, range(repeats)))
    lo, hi = (len(xs) - 1) // 2, len(xs) // 2
    return float((xs[lo] + xs[hi]) / 2)
