def count_params(arch):
    wm, d = arch["width_mult"], arch["depth"]
    ch = [16] + [make_divisible(BASE_WIDTHS[i] * wm) for i in range(d)]
    return (
        16 * 3 * 9 + 2 * 16
        + sum(
            (ch[i] * k * k + 2 * ch[i] + ch[i] * ch[i + 1] + 2 * ch[i + 1]) if s
            else (ch[i + 1] * ch[i] * k * k + 2 * ch[i + 1])
            for i, (k, s) in enumerate(zip(arch["kernel_sizes"], arch["separable"]))
        )
        + ch[-1] * 10 + 10
    )
