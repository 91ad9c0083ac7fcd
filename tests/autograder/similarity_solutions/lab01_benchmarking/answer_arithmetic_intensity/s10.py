def _ratio(numerator, denominator):
    return numerator / denominator


def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity (FLOP/byte)."""
    return _ratio(flops, nbytes)
