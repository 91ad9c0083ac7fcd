def _conv(c_in, c_out, k, groups=1):
    return c_out * (c_in // groups) * k * k


def _bn(c):
    return 2 * c


def count_params(arch):
    n = _conv(3, 16, 3) + _bn(16)
    ch = 16
    for idx, (k, sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        out = make_divisible(BASE_WIDTHS[idx] * arch["width_mult"])
        if sep:
            n += _conv(ch, ch, k, groups=ch) + _bn(ch) + _conv(ch, out, 1) + _bn(out)
        else:
            n += _conv(ch, out, k) + _bn(out)
        ch = out
    return int(n + ch * 10 + 10)
