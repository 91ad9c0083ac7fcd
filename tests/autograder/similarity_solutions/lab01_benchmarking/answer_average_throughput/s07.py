import statistics


def average_throughput(work, times):
    """Harmonic mean of the per-run throughputs r_i = work / t_i."""
    per_run = [float(work) / float(t) for t in times]
    return float(statistics.harmonic_mean(per_run))
