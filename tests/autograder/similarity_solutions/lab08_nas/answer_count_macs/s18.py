def count_macs(arch, input_shape):
    b, c_img, h, w = (int(v) for v in input_shape)
    layers = []   # (c_in, c_out, k, stride, pad, groups)
    layers.append((c_img, STEM_CHANNELS, 3, 1, 1, 1))
    c = STEM_CHANNELS
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            layers.append((c, c, k, 2, k // 2, c))
            layers.append((c, out, 1, 1, 0, 1))
        else:
            layers.append((c, out, k, 2, k // 2, 1))
        c = out

    macs = 0
    for c_in, c_out, k, s, p, g in layers:
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        macs += h * w * c_out * (c_in // g) * k * k
    return b * (macs + c * NUM_CLASSES)
