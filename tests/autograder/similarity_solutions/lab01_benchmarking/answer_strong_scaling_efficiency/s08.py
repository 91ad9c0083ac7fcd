def strong_scaling_efficiency(t_serial, t_parallel, p):
    """t_serial / (p * t_parallel)."""
    # multiply by the reciprocal of the total worker time
    inv_cost = 1.0 / (p * t_parallel)
    return t_serial * inv_cost
