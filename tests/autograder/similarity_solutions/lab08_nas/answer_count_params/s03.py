def count_params(arch):
    # every conv as (c_in, c_out, k, groups); each is followed by a BatchNorm2d(c_out)
    convs = [(3, 16, 3, 1)]
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        co = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            convs += [(c, c, k, c), (c, co, 1, 1)]
        else:
            convs.append((c, co, k, 1))
        c = co
    conv_and_bn = sum(co * (ci // g) * k * k + 2 * co for ci, co, k, g in convs)
    linear = c * NUM_CLASSES + NUM_CLASSES
    return conv_and_bn + linear
