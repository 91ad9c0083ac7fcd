def amdahl_speedup(parallel_fraction, s):
  p = parallel_fraction
  d = (1 - p) + p / s
  return 1 / d if d else math.inf
