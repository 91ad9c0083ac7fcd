def count_macs(arch, input_shape):
    B, C, H, W = [int(x) for x in input_shape]
    total = 0
    # stem conv 3x3, stride 1, padding 1
    total += H * W * STEM_CHANNELS * C * 3 * 3
    cin = STEM_CHANNELS
    for b in range(arch["depth"]):
        ks = arch["kernel_sizes"][b]
        cout = make_divisible(BASE_WIDTHS[b] * arch["width_mult"])
        H = (H + 2 * (ks // 2) - ks) // 2 + 1
        W = (W + 2 * (ks // 2) - ks) // 2 + 1
        if arch["separable"][b]:
            total += H * W * cin * ks * ks
            total += H * W * cout * cin
        else:
            total += H * W * cout * cin * ks * ks
        cin = cout
    total += cin * NUM_CLASSES
    return B * total
