def average_throughput(work, times):
    """Throughput of all runs together, as a Python float."""
    mean_t = np.mean(np.asarray(times, dtype=np.float64))
    return float(work / mean_t)
