def strong_scaling_efficiency(t_serial, t_parallel, p):
    return (t_serial / t_parallel) / p
