def arithmetic_intensity(flops, nbytes):
    """
    Computes arithmetic intensity.

    Args:
        flops: total floating point operations.
        nbytes: total number of bytes read + written.

    Returns:
        flops / nbytes, in FLOP/byte.
    """
    result = flops / nbytes
    return result
