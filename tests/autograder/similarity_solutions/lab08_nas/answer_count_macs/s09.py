def count_macs(arch, input_shape):
    batch, channels, h, w = (int(d) for d in input_shape)
    out_h = lambda n, k, s, p: (n + 2 * p - k) // s + 1
    macs = 0
    h, w = out_h(h, 3, 1, 1), out_h(w, 3, 1, 1)
    macs += h * w * 16 * channels * 9
    c_prev = 16
    for idx, (k, dw) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        c_next = make_divisible(BASE_WIDTHS[idx] * arch["width_mult"])
        h, w = out_h(h, k, 2, k // 2), out_h(w, k, 2, k // 2)
        macs += h * w * (c_prev * k * k + c_prev * c_next) if dw else h * w * c_next * c_prev * k * k
        c_prev = c_next
    return batch * (macs + c_prev * NUM_CLASSES)
