def arithmetic_intensity(flops, nbytes):
  """Arithmetic intensity in FLOP/byte."""
  return (flops) / (nbytes)
