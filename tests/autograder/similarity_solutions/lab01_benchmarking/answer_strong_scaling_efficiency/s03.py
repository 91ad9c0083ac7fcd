def strong_scaling_efficiency(t_serial, t_parallel, p):
    """E(p) = t1 / (p * tp)."""
    worker_seconds = p * t_parallel   # total time all p workers are busy (or idle)
    return t_serial / worker_seconds
