def count_params(arch):
    """Count parameters recursively, block by block."""
    def rest(i, c_in):
        if i >= arch["depth"]:
            return c_in * NUM_CLASSES + NUM_CLASSES          # the linear head
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            here = (c_in * k * k + 2 * c_in) + (c_in * c_out + 2 * c_out)
        else:
            here = c_in * c_out * k * k + 2 * c_out
        return here + rest(i + 1, c_out)

    return 27 * STEM_CHANNELS + 2 * STEM_CHANNELS + rest(0, STEM_CHANNELS)
