def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Strong-scaling efficiency t_serial / (p * t_parallel).

    E.g. 10 s serially and 4 s on 4 workers: speed-up 2.5 of an ideal 4 -> 0.625.
    """
    total_parallel_time = p * t_parallel
    return t_serial / total_parallel_time
