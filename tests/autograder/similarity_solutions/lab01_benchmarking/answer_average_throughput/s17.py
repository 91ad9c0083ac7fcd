def average_throughput(work, times):
    n = len(times)
    i = 0
    t_sum = 0.0
    while i < n:
        t_sum += float(times[i])
        i += 1
    return (n * work) / t_sum
