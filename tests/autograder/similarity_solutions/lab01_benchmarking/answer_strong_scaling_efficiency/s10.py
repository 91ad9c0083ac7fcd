def strong_scaling_efficiency(t_serial, t_parallel, p):
  # E = t_1 / (p * t_p)
  n_workers = p
  return t_serial / (n_workers * t_parallel)
