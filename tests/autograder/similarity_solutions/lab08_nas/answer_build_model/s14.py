def build_model(arch):
    # first describe every conv as (c_in, c_out, kernel, stride, groups), then turn it into modules
    convs = [(3, 16, 3, 1, 1)]
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        co = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            convs.append((c, c, k, 2, c))
            convs.append((c, co, 1, 1, 1))
        else:
            convs.append((c, co, k, 2, 1))
        c = co
    modules = []
    for ci, co, k, s, g in convs:
        modules += [nn.Conv2d(ci, co, k, stride=s, padding=k // 2, groups=g, bias=False),
                    nn.BatchNorm2d(co), nn.ReLU()]
    modules += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10)]
    return nn.Sequential(*modules)
