def arithmetic_intensity(flops, nbytes):
    # arithmetic intensity = work / data movement
    return float(flops) / nbytes
