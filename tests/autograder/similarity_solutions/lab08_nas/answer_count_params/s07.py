def count_params(arch):
    conv_w = 0      # conv weights
    bn_ch = 0       # channels that have a BatchNorm (2 parameters each)
    conv_w += 16 * 3 * 3 * 3
    bn_ch += 16
    prev = 16
    for i, k in enumerate(arch["kernel_sizes"]):
        nxt = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            conv_w += prev * k * k      # depthwise: groups == channels
            bn_ch += prev
            conv_w += prev * nxt        # 1x1 pointwise
        else:
            conv_w += nxt * prev * k * k
        bn_ch += nxt
        prev = nxt
    linear = prev * 10 + 10
    return conv_w + 2 * bn_ch + linear
