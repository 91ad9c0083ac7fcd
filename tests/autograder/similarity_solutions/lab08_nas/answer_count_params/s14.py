def count_params(arch):
    outs = list(map(lambda b: make_divisible(b * arch["width_mult"]), BASE_WIDTHS[: arch["depth"]]))
    ins = [16, *outs[:-1]]

    def block(args):
        ci, co, k, sep = args
        return ci * k * k + 2 * ci + ci * co + 2 * co if sep else co * ci * k * k + 2 * co

    body = sum(map(block, zip(ins, outs, arch["kernel_sizes"], arch["separable"])))
    return 16 * 27 + 32 + body + outs[-1] * 10 + 10
