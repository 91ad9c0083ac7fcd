import heapq
import time


def median_time_s(fn, args, warmup, repeats):
    if repeats < 1 or warmup < 0:
        raise ValueError("invalid warmup/repeats")
    for _ in range(warmup):
        fn(*args)
    elapsed = []
    for _ in range(repeats):
        t_start = time.perf_counter()
        fn(*args)
        elapsed.append(time.perf_counter() - t_start)
    # the smallest half (plus one) of the timings holds the middle element(s)
    k = repeats // 2 + 1
    smallest = heapq.nsmallest(k, elapsed)
    if repeats % 2:
        return float(smallest[-1])
    return float((smallest[-2] + smallest[-1]) / 2)
