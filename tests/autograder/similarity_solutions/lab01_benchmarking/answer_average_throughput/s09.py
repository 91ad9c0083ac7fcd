import statistics


def average_throughput(work, times):
    # each run does the same work, so the rate of the whole is work / average time
    return float(work) / statistics.fmean(times)
