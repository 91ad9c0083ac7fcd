def strong_scaling_efficiency(t_serial, t_parallel, p):
    cost_parallel = t_parallel * p   # "cost" = processors x time
    efficiency = t_serial / cost_parallel
    return efficiency
