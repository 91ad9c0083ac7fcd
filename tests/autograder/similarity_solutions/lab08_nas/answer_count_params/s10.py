def _standard_block(c_in, c_out, k):
    return c_out * c_in * k * k + 2 * c_out


def _separable_block(c_in, c_out, k):
    depthwise = c_in * k * k + 2 * c_in
    pointwise = c_out * c_in + 2 * c_out
    return depthwise + pointwise


BLOCK_PARAMS = {False: _standard_block, True: _separable_block}


def count_params(arch):
    total = 16 * 3 * 9 + 2 * 16
    c = 16
    for i in range(arch["depth"]):
        c_next = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        total += BLOCK_PARAMS[bool(arch["separable"][i])](c, c_next, arch["kernel_sizes"][i])
        c = c_next
    return total + c * 10 + 10
