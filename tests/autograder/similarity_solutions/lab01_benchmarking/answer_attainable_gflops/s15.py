import numpy as np


def attainable_gflops(ai, peak_gflops, peak_gbs):
  # clip the bandwidth roof from above at the compute peak
  return float(np.clip(ai * peak_gbs, None, peak_gflops))
