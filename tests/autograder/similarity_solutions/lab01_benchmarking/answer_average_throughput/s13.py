def average_throughput(work, times):
    """The arithmetic mean of rates would overweight the fast runs; use total work / total time."""
    return float(work) / float(np.average(np.asarray(times, dtype=float)))
