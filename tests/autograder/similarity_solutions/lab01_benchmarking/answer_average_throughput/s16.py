def average_throughput(work, times):
    """Average throughput (work per second) of equal-work runs."""
    seconds = np.asarray(times, dtype=np.float64)
    rates = work / seconds
    # harmonic mean of the rates = total work / total time
    return float(rates.size / np.sum(1.0 / rates))
