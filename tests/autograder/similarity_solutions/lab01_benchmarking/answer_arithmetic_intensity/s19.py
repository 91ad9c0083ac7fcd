def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity in FLOP/byte.

    Example: a float32 dot product of length n does 2n FLOP and reads 8n bytes,
    so arithmetic_intensity(2 * n, 8 * n) == 0.25.
    """
    return flops / nbytes
