def build_model(arch):
    layers = []

    def conv(cin, cout, k, stride=1, groups=1):
        layers.append(nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False))
        layers.append(nn.BatchNorm2d(cout))
        layers.append(nn.ReLU())
        return cout

    c = conv(3, 16, 3)
    for i in range(arch["depth"]):
        target = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        k = arch["kernel_sizes"][i]
        if arch["separable"][i]:
            conv(c, c, k, stride=2, groups=c)
            c = conv(c, target, 1)
        else:
            c = conv(c, target, k, stride=2)
    layers.append(nn.AdaptiveAvgPool2d(output_size=(1, 1)))
    layers.append(nn.Flatten(start_dim=1))
    layers.append(nn.Linear(c, 10))
    return nn.Sequential(*layers)
