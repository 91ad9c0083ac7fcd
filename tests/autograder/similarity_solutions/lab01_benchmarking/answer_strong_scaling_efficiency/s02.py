def strong_scaling_efficiency(t_serial, t_parallel, p):
    speedup = t_serial / t_parallel
    return speedup / p  # 1.0 = perfect scaling
