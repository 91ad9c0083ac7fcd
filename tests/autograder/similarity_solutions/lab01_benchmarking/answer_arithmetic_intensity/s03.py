def arithmetic_intensity(flops, nbytes):
    """FLOP/byte."""
    # cast both so integer counts (e.g. 2_000 and 8_000) give a float ratio
    return float(flops) / float(nbytes)
