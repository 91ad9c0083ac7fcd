import statistics
import time


def median_time_s(fn, args, warmup, repeats):
  """Median of `repeats` single-call timings after `warmup` untimed calls."""
  if repeats < 1:
    raise ValueError("repeats must be >= 1")
  elif warmup < 0:
    raise ValueError("warmup must be >= 0")

  for _ in range(warmup):
    fn(*args)

  def single():
    s = time.perf_counter()
    fn(*args)
    return time.perf_counter() - s

  return float(statistics.median([single() for _ in range(repeats)]))
