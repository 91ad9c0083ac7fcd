def average_throughput(work, times):
    """Total work over total time (the harmonic mean of the rates, not their arithmetic mean)."""
    time_total = sum(map(float, times))
    work_total = work * len(times)
    throughput = work_total / time_total
    return float(throughput)
