import statistics


def mean_of_second_half(times):
    """Discard the first ceil(n/2) timings (warm-up) and average the rest."""
    if len(times) < 2:
        raise ValueError("fewer than 2 timings have no second half")
    half = (len(times) + 1) // 2
    return statistics.fmean(times[half:])
