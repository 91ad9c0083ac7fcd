def count_params(arch):
    stem = 16 * 3 * 3 * 3 + 2 * 16
    total = stem
    cin = 16
    for idx in range(arch["depth"]):
        cout = make_divisible(BASE_WIDTHS[idx] * arch["width_mult"])
        kk = arch["kernel_sizes"][idx] * arch["kernel_sizes"][idx]
        # a separable block is a depthwise (groups = cin) conv plus a 1x1 conv, each with its BN
        total += (cin * kk + cin * cout + 2 * cin + 2 * cout) if arch["separable"][idx] else (cin * cout * kk + 2 * cout)
        cin = cout
    head = cin * 10 + 10
    return total + head
