def average_throughput(work, times):
    # work per second over the whole experiment = work / (mean time per run)
    mean_time = sum(float(t) for t in times) / len(times)
    return float(work) / mean_time
