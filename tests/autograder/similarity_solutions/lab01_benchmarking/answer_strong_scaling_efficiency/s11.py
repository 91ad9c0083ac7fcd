def strong_scaling_efficiency(t_serial, t_parallel, p):
    """
    Parallel efficiency for a fixed problem size.

    Parameters
    ----------
    t_serial : float
        run time with one worker
    t_parallel : float
        run time with p workers
    p : int
        number of workers

    Returns
    -------
    float
        t_serial / (p * t_parallel)
    """
    measured_speedup = t_serial / t_parallel
    ideal_speedup = p
    return measured_speedup / ideal_speedup
