def count_macs(arch, input_shape):
    shape = [int(s) for s in input_shape]
    batch, spatial = shape[0], shape[2:]
    channels = 16
    per_img = spatial[0] * spatial[1] * channels * 3 * 9
    for i in range(arch["depth"]):
        ks = arch["kernel_sizes"][i]
        spatial = [(s + 2 * (ks // 2) - ks) // 2 + 1 for s in spatial]
        hw = spatial[0] * spatial[1]
        nxt = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            per_img += hw * channels * ks ** 2 + hw * nxt * channels
        else:
            per_img += hw * nxt * channels * ks ** 2
        channels = nxt
    per_img += channels * 10
    return batch * per_img
