def is_memory_bound(ai, peak_gflops, peak_gbs):
  """True iff ai * peak_gbs < peak_gflops; False at the ridge."""
  perf_mem = ai * peak_gbs
  return perf_mem < peak_gflops
