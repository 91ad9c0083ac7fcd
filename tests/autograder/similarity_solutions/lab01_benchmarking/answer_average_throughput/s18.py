import math


def average_throughput(work, times):
    runs = [float(t) for t in times]
    total_work = work * len(runs)
    return float(total_work) / math.fsum(runs)
