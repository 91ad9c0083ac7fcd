def average_throughput(work, times):
    elapsed = 0.0
    count = 0
    for count, seconds in enumerate(times, start=1):
        elapsed += float(seconds)
    return count * work / elapsed
