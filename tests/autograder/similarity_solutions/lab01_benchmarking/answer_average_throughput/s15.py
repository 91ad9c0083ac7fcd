def average_throughput(work, times):
    # H(r_1..r_n) = n / sum(1 / r_i), with r_i = work / t_i
    n = len(times)
    inverse_rates = 0.0
    for t in times:
        inverse_rates += float(t) / work
    return n / inverse_rates
