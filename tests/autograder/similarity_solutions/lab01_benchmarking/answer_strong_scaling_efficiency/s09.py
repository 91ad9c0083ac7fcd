def strong_scaling_efficiency(t_serial, t_parallel, p):
    """Strong-scaling efficiency t_serial / (p * t_parallel) (Lab 1, Part 6)."""
    # YOUR CODE HERE
    if p == 0 or t_parallel == 0:
        raise ZeroDivisionError("p and t_parallel must be non-zero")
    eff = t_serial / (p * t_parallel)
    return eff
