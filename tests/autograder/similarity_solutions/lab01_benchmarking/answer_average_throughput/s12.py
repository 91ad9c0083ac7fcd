def average_throughput(work, times):
    if len(times) == 0:
        raise ValueError("times must not be empty")
    total_work = float(work) * len(times)
    total_time = float(sum(float(t) for t in times))
    return total_work / total_time
