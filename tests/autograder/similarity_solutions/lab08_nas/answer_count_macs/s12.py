def count_macs(arch, input_shape):
    """Walk the network like a forward pass, tracking (channels, height, width)."""
    batch, c, h, w = (int(x) for x in input_shape)
    macs = 0

    def conv(c_out, k, stride, groups=1):
        nonlocal c, h, w, macs
        pad = k // 2
        h = (h + 2 * pad - k) // stride + 1
        w = (w + 2 * pad - k) // stride + 1
        macs += h * w * c_out * (c // groups) * k * k
        c = c_out

    conv(STEM_CHANNELS, 3, 1)
    for i, k in enumerate(arch["kernel_sizes"]):
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            conv(c, k, 2, groups=c)
            conv(c_out, 1, 1)
        else:
            conv(c_out, k, 2)
    macs += c * NUM_CLASSES
    return batch * macs
