def conv_macs(h, w, c_in, c_out, k, stride=1, padding=0, groups=1):
    """(MACs per image, h_out, w_out) of one Conv2d."""
    h_out = (h + 2 * padding - k) // stride + 1
    w_out = (w + 2 * padding - k) // stride + 1
    return h_out * w_out * c_out * (c_in // groups) * k * k, h_out, w_out


def count_macs(arch, input_shape):
    batch, _, h, w = tuple(input_shape)
    total, h, w = conv_macs(h, w, 3, 16, 3, stride=1, padding=1)
    c = 16
    for i in range(arch["depth"]):
        k, sep = arch["kernel_sizes"][i], arch["separable"][i]
        out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if sep:
            dw, h, w = conv_macs(h, w, c, c, k, stride=2, padding=k // 2, groups=c)
            pw, h, w = conv_macs(h, w, c, out, 1)
            total += dw + pw
        else:
            std, h, w = conv_macs(h, w, c, out, k, stride=2, padding=k // 2)
            total += std
        c = out
    linear = c * 10
    return int(batch * (total + linear))
