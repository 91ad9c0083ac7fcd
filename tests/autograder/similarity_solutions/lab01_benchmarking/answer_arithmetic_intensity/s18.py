def arithmetic_intensity(flops, nbytes):
    numer = float(flops)
    denom = float(nbytes)
    return numer / denom
