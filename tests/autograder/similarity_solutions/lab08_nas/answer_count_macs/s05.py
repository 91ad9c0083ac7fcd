def count_macs(arch, input_shape):
    """Analytic MACs; recursion over the blocks carries the channels and the spatial size."""
    batch, _, height, width = input_shape

    def blocks(i, c_in, h, w):
        if i == arch["depth"]:
            return c_in * NUM_CLASSES
        k = arch["kernel_sizes"][i]
        pad = k // 2
        ho, wo = (h + 2 * pad - k) // 2 + 1, (w + 2 * pad - k) // 2 + 1
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            cost = ho * wo * c_in * k * k + ho * wo * c_out * c_in
        else:
            cost = ho * wo * c_out * c_in * k * k
        return cost + blocks(i + 1, c_out, ho, wo)

    hs = (height + 2 - 3) // 1 + 1
    ws = (width + 2 - 3) // 1 + 1
    per_image = hs * ws * STEM_CHANNELS * IN_CHANNELS * 9 + blocks(0, STEM_CHANNELS, hs, ws)
    return int(batch) * int(per_image)
