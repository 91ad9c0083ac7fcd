def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Strong-scaling efficiency t_serial / (p * t_parallel) (Lab 1, Part 6).

    t_serial: time on 1 worker; t_parallel: time on p workers, same problem size.
    """
    return t_serial / (p * t_parallel)
