def average_throughput(work, times):
    t = np.fromiter((float(x) for x in times), dtype=np.float64)
    return float(len(t)) * work / float(t.sum())
