def average_throughput(work, times):
    t = np.asarray(times, dtype=np.float64)
    return float(work * t.size / t.sum())
