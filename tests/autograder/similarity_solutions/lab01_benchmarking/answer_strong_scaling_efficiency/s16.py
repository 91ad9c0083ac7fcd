def strong_scaling_efficiency(t_serial, t_parallel, p):
    # strong scaling: same problem, more workers
    return t_serial / (t_parallel * p)
