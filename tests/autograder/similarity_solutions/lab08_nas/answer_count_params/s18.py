def count_params(arch):
    """Walk the layers that build_model would create and add up their parameters."""
    layers = [("conv", 3, 16, 3, 1), ("bn", 16)]
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            layers += [("conv", c, c, k, c), ("bn", c), ("conv", c, out, 1, 1), ("bn", out)]
        else:
            layers += [("conv", c, out, k, 1), ("bn", out)]
        c = out
    layers.append(("linear", c, 10))

    n = 0
    for layer in layers:
        kind = layer[0]
        if kind == "conv":
            _, cin, cout, k, g = layer
            n += cout * (cin // g) * k * k
        elif kind == "bn":
            n += 2 * layer[1]
        else:
            _, fin, fout = layer
            n += fin * fout + fout
    return n
