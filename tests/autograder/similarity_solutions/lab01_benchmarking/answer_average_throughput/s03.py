def average_throughput(work, times):
    """Total work divided by total time, which equals the harmonic mean of the rates."""
    total_time = 0.0
    runs = 0
    for t in times:
        total_time += float(t)
        runs += 1
    total_work = runs * work
    return float(total_work / total_time)
