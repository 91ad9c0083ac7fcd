import itertools


def mean_of_second_half(times):
    n = len(times)
    if n < 2:
        raise ValueError("mean_of_second_half: fewer than 2 timings")
    kept = list(itertools.islice(times, (n + 1) // 2, None))
    return sum(map(float, kept)) / len(kept)
