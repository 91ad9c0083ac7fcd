def arithmetic_intensity(flops, nbytes):
    return float(flops / nbytes)  # FLOP/byte as a plain python float
