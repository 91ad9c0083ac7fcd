def strong_scaling_efficiency(t_serial, t_parallel, p):
    """t_serial / (p * t_parallel)"""
    workers, t1, tp = p, t_serial, t_parallel
    return t1 / (workers * tp)
