def count_macs(arch, input_shape):
    N, _, Hin, Win = input_shape
    stem_macs = Hin * Win * 16 * 3 * 3 * 3
    block_macs = 0
    c_in, Hc, Wc = 16, Hin, Win
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        p = k // 2
        Hc = (Hc + 2 * p - k) // 2 + 1
        Wc = (Wc + 2 * p - k) // 2 + 1
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            depthwise = Hc * Wc * c_in * (c_in // c_in) * k * k
            pointwise = Hc * Wc * c_out * c_in
            block_macs += depthwise + pointwise
        else:
            block_macs += Hc * Wc * c_out * c_in * k * k
        c_in = c_out
    head_macs = c_in * NUM_CLASSES
    return int(N) * int(stem_macs + block_macs + head_macs)
