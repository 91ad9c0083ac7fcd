def count_macs(arch, input_shape):
    batch, _, height, width = input_shape

    def output_hw(h, w, k, stride, padding):
        return (h + 2 * padding - k) // stride + 1, (w + 2 * padding - k) // stride + 1

    h, w = output_hw(height, width, 3, 1, 1)
    macs = h * w * 16 * 3 * 3 * 3
    c_in = 16
    for block in range(arch["depth"]):
        k = arch["kernel_sizes"][block]
        c_out = make_divisible(BASE_WIDTHS[block] * arch["width_mult"])
        h, w = output_hw(h, w, k, 2, k // 2)
        if arch["separable"][block]:
            macs += h * w * c_in * k * k   # depthwise
            # pointwise: 1x1, stride 1, no padding -> same h, w
            macs += h * w * c_out * c_in
        else:
            macs += h * w * c_out * c_in * k * k
        c_in = c_out
    macs += c_in * NUM_CLASSES
    return int(macs * batch)
