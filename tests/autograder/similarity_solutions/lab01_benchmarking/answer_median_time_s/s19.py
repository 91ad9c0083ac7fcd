import time

import numpy as np


def median_time_s(fn, args, warmup, repeats):
  if repeats < 1 or warmup < 0:
    raise ValueError("need repeats >= 1, warmup >= 0")
  count = 0
  while count < warmup:
    fn(*args)
    count += 1
  elapsed_list = []
  for _ in range(repeats):
    s = time.perf_counter()
    fn(*args)
    e = time.perf_counter()
    elapsed_list.append(e - s)
  return float(np.median(elapsed_list))
