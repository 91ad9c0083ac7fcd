def _layer_params(arch):
    """Yields the parameter count of every layer, in the order build_model creates them."""
    yield 16 * 3 * 3 * 3          # stem conv
    yield 2 * 16                  # stem BN
    c_in = 16
    for i in range(arch["depth"]):
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        k = arch["kernel_sizes"][i]
        if arch["separable"][i]:
            yield c_in * k * k    # depthwise
            yield 2 * c_in
            yield c_in * c_out    # pointwise
        else:
            yield c_in * c_out * k * k
        yield 2 * c_out
        c_in = c_out
    yield c_in * 10 + 10          # linear head with bias


def count_params(arch):
    return sum(_layer_params(arch))
