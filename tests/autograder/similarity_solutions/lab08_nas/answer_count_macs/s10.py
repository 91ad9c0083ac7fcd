def count_macs(arch, input_shape):
    batch, _, H, W = input_shape
    sizes = []              # spatial size after each block
    h, w = H, W
    for k in arch["kernel_sizes"]:
        h = (h + 2 * (k // 2) - k) // 2 + 1
        w = (w + 2 * (k // 2) - k) // 2 + 1
        sizes.append((h, w))
    widths = [make_divisible(BASE_WIDTHS[i] * arch["width_mult"]) for i in range(arch["depth"])]
    c_ins = [STEM_CHANNELS] + widths[:-1]

    total = H * W * STEM_CHANNELS * IN_CHANNELS * 9
    for (h, w), ci, co, k, sep in zip(sizes, c_ins, widths, arch["kernel_sizes"], arch["separable"]):
        if sep:
            total += h * w * ci * k * k + h * w * ci * co
        else:
            total += h * w * ci * co * k * k
    total += widths[-1] * NUM_CLASSES
    return int(total) * int(batch)
