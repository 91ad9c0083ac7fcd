def arithmetic_intensity(flops, nbytes):
    """I = F / Q  [FLOP/byte]"""
    return flops / nbytes  # left of the ridge if I * beta < pi
