def strong_scaling_efficiency(t_serial: float, t_parallel: float, p: int) -> float:
    """Strong-scaling efficiency (1 is perfect, below 1 means workers idle or wait)."""
    return float(t_serial) / (p * float(t_parallel))
