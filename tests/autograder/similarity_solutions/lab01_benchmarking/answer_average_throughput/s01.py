def average_throughput(work, times):
    """Average throughput of runs that each do the same ``work`` (e.g. FLOP) (Lab 1, Part 3).

    ``times`` holds the seconds each run took (a non-empty sequence). Return the one
    throughput (work per second, a Python float) that describes all runs together.
    Quiz: average_throughput(10_000, [12, 13, 10, 12.5, 11, 11.25, 10.25, 14, 13.75, 14.25]) is about 820.
    """
    # total work / total time
    return float(len(times) * work / sum(times))
