def count_params(arch):
    def conv_bn(c_in, c_out, k, groups=1):
        # conv without bias, then BatchNorm with weight and bias
        return c_out * (c_in // groups) * k * k + 2 * c_out

    def block(c_in, c_out, k, separable):
        if separable:
            return conv_bn(c_in, c_in, k, groups=c_in) + conv_bn(c_in, c_out, 1)
        return conv_bn(c_in, c_out, k)

    total = conv_bn(3, 16, 3)
    c_in = 16
    for i in range(arch["depth"]):
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        total += block(c_in, c_out, arch["kernel_sizes"][i], arch["separable"][i])
        c_in = c_out
    return total + c_in * 10 + 10
