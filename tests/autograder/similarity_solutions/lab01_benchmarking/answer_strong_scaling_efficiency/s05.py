def _speedup(t1, tp):
    return t1 / tp


def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Efficiency = speed-up / number of workers."""
    return _speedup(t_serial, t_parallel) / p
