def conv_bn_relu(c_in, c_out, k, stride=1, groups=1):
    """Conv (no bias) -> BatchNorm -> ReLU, padding k // 2."""
    return [
        nn.Conv2d(c_in, c_out, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    ]


def build_model(arch):
    mods = conv_bn_relu(3, 16, 3)
    ch = 16
    for idx, (k, sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        out = make_divisible(BASE_WIDTHS[idx] * arch["width_mult"])
        if sep:
            mods.extend(conv_bn_relu(ch, ch, k, stride=2, groups=ch))   # depthwise
            mods.extend(conv_bn_relu(ch, out, 1))                       # pointwise
        else:
            mods.extend(conv_bn_relu(ch, out, k, stride=2))
        ch = out
    mods.extend([nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(1), nn.Linear(ch, 10)])
    return nn.Sequential(*mods)
