def strong_scaling_efficiency(t_serial, t_parallel, p):
    # ideal time on p workers is t_serial / p; efficiency = ideal / measured
    ideal = t_serial / p
    return ideal / t_parallel
