def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Fraction of perfect linear speed-up that is achieved."""
    return t_serial / p / t_parallel
