import time


def _quickselect(xs, k):
    """k-th smallest element of xs (0-based), recursively."""
    pivot = xs[len(xs) // 2]
    lower = [x for x in xs if x < pivot]
    equal = [x for x in xs if x == pivot]
    if k < len(lower):
        return _quickselect(lower, k)
    if k < len(lower) + len(equal):
        return pivot
    upper = [x for x in xs if x > pivot]
    return _quickselect(upper, k - len(lower) - len(equal))


def median_time_s(fn, args, warmup, repeats):
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    for _ in range(warmup):
        fn(*args)
    dts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        dts.append(time.perf_counter() - t0)
    n = len(dts)
    if n % 2:
        return float(_quickselect(dts, n // 2))
    return (_quickselect(dts, n // 2 - 1) + _quickselect(dts, n // 2)) / 2
