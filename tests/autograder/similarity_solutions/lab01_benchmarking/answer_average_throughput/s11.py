def _total(values):
    s = 0.0
    for v in values:
        s += float(v)
    return s


def average_throughput(work, times):
    n_runs = len(times)
    return n_runs * work / _total(times)
