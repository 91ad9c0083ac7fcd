def count_macs(arch, input_shape):
    """MACs of one forward pass of build_model(arch) on an input of shape (batch, 3, H, W) (Lab 8, Part 2).

    conv: h_out * w_out * c_out * (c_in / groups) * k * k per image, h_out = (h + 2p - k) // s + 1;
    linear: in * out per image; BatchNorm, ReLU, pooling and biases not counted; times the batch size.
    Returns an int.
    """
    batch, _, h, w = (int(v) for v in input_shape)

    def conv(h, w, c_in, c_out, k, s, p, g):
        ho = (h + 2 * p - k) // s + 1
        wo = (w + 2 * p - k) // s + 1
        return ho * wo * c_out * (c_in // g) * k * k, ho, wo

    total, h, w = conv(h, w, 3, 16, 3, 1, 1, 1)
    c_in = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            m, h, w = conv(h, w, c_in, c_in, k, 2, k // 2, c_in)
            total += m
            m, h, w = conv(h, w, c_in, c_out, 1, 1, 0, 1)
            total += m
        else:
            m, h, w = conv(h, w, c_in, c_out, k, 2, k // 2, 1)
            total += m
        c_in = c_out
    total += c_in * NUM_CLASSES
    return batch * total
