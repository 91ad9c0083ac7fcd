def average_throughput(work, times):
    # the harmonic mean of the per-run rates work / t_i
    rates = [work / float(t) for t in times]
    return len(rates) / sum(1.0 / r for r in rates)
