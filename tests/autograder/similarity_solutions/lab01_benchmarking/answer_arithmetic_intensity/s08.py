def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity in FLOP/byte: flops / nbytes (Lab 1, Part 5)."""
    # YOUR CODE HERE
    F, Q = flops, nbytes
    I = F / Q
    return I
