def count_params(arch):
    depth = arch["depth"]
    outs = [make_divisible(b * arch["width_mult"]) for b in BASE_WIDTHS[:depth]]
    ins = [STEM_CHANNELS] + outs[:-1]
    blocks = 0
    for ci, co, k, sep in zip(ins, outs, arch["kernel_sizes"], arch["separable"]):
        if sep:
            blocks += ci * k * k + ci * co + 2 * (ci + co)
        else:
            blocks += ci * co * k * k + 2 * co
    stem = IN_CHANNELS * STEM_CHANNELS * 9 + 2 * STEM_CHANNELS
    head = outs[-1] * NUM_CLASSES + NUM_CLASSES
    return stem + blocks + head
