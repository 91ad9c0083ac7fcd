def required_part_speedup(part_fraction, current_total, target_total):
  """s_part = f*T / (T' - (1-f)*T), or math.inf if T' <= (1-f)*T."""
  f = part_fraction
  T = current_total
  denom = target_total - (1 - f) * T
  if denom <= 0:
    return math.inf
  return f * T / denom
