def count_macs(arch, input_shape):
    batch, _, h, w = input_shape
    batch, h, w = int(batch), int(h), int(w)
    total = 16 * 27 * h * w
    c = 16
    for i, (k, separable) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        new_c = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        pad = k // 2
        h, w = (h + 2 * pad - k) // 2 + 1, (w + 2 * pad - k) // 2 + 1
        weights_per_pixel = (c * k * k + c * new_c) if separable else new_c * c * k * k
        total += h * w * weights_per_pixel
        c = new_c
    return batch * (total + 10 * c)
