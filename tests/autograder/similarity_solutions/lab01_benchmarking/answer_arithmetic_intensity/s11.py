def arithmetic_intensity(flops, nbytes):
    flop_per_byte = flops / nbytes   # e.g. dot product: 2n / 8n = 0.25
    return flop_per_byte
