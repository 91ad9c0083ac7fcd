def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity in FLOP/byte: flops / nbytes (Lab 1, Part 5)."""
    return flops / nbytes
