def arithmetic_intensity(flops, nbytes):
    # I = F / Q  (FLOP per byte moved)
    intensity = flops / nbytes
    return intensity
