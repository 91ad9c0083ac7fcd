def strong_scaling_efficiency(t_serial, t_parallel, p):
    # how long p workers would take if the work split perfectly
    perfect_time = t_serial / p
    if perfect_time == t_parallel:
        return 1.0
    return perfect_time / t_parallel
