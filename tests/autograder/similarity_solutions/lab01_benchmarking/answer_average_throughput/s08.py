from functools import reduce


def average_throughput(work, times):
    total_time = reduce(lambda acc, t: acc + float(t), times, 0.0)
    return len(times) * float(work) / total_time
