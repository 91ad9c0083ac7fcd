def mean_of_second_half(times):
    # work on plain Python floats so lists, tuples and arrays behave the same
    vals = [float(x) for x in times]
    if len(vals) < 2:
        raise ValueError("a second half needs at least 2 timings")
    kept = vals[(len(vals) + 1) // 2:]
    return sum(kept) / len(kept)
