def count_macs(arch, input_shape):
    n, _, h, w = map(int, input_shape)
    # (c_in, c_out, k, stride, groups) for every conv, in order
    convs = [(3, 16, 3, 1, 1)]
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        co = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            convs += [(c, c, k, 2, c), (c, co, 1, 1, 1)]
        else:
            convs.append((c, co, k, 2, 1))
        c = co
    total = 0
    for ci, co, k, s, g in convs:
        p = k // 2
        h = (h + 2 * p - k) // s + 1
        w = (w + 2 * p - k) // s + 1
        total += h * w * co * (ci // g) * k * k
    total += c * NUM_CLASSES
    return n * total
