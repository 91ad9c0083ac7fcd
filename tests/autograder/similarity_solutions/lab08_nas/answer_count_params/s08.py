def count_params(arch):
    params = 3 * 16 * 3 * 3 + 32
    c_in = 16
    i = 0
    while i < arch["depth"]:
        width = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        ksq = arch["kernel_sizes"][i] ** 2
        if not arch["separable"][i]:
            params += width * c_in * ksq + 2 * width
        else:
            params += c_in * ksq + 2 * c_in + width * c_in + 2 * width
        c_in = width
        i += 1
    params += c_in * NUM_CLASSES + NUM_CLASSES
    return params
