def count_params(arch):
    """Parameters of build_model(arch), from the architecture alone (Lab 8, Part 2).

    conv: c_out * (c_in / groups) * k * k (no bias); BatchNorm2d(c): 2 * c; Linear(n, m): n * m + m.
    Returns an int.
    """
    total = STEM_CHANNELS * IN_CHANNELS * 3 * 3 + 2 * STEM_CHANNELS
    c_in = STEM_CHANNELS
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            total += c_in * k * k + 2 * c_in      # depthwise + BN
            total += c_out * c_in + 2 * c_out     # pointwise + BN
        else:
            total += c_out * c_in * k * k + 2 * c_out
        c_in = c_out
    total += c_in * NUM_CLASSES + NUM_CLASSES
    return total
