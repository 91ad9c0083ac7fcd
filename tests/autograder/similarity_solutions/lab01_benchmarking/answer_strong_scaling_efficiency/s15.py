def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Strong scaling efficiency."""
    t1, tp = float(t_serial), float(t_parallel)
    s = t1 / tp          # speed-up on p workers
    e = s / p            # efficiency
    return e
