def count_params(arch):
    total = 0
    c_prev = STEM_CHANNELS
    total += STEM_CHANNELS * IN_CHANNELS * 3 * 3  # stem conv
    total += 2 * STEM_CHANNELS                    # stem BN
    for block, (ks, dws) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        c_new = make_divisible(BASE_WIDTHS[block] * arch["width_mult"])
        if dws:
            g = c_prev
            total += c_prev * (c_prev // g) * ks * ks + 2 * c_prev
            total += c_new * c_prev * 1 * 1 + 2 * c_new
        else:
            total += c_new * c_prev * ks * ks + 2 * c_new
        c_prev = c_new
    total += c_prev * NUM_CLASSES + NUM_CLASSES
    return int(total)
