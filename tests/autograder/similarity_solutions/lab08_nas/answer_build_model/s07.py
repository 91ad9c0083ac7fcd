def build_model(arch):
    model = nn.Sequential()
    model.add_module("conv0", nn.Conv2d(IN_CHANNELS, STEM_CHANNELS, 3, padding=1, bias=False))
    model.add_module("bn0", nn.BatchNorm2d(STEM_CHANNELS))
    model.add_module("act0", nn.ReLU())
    n = 1
    c_in = STEM_CHANNELS

    def add(conv, c):
        nonlocal n
        model.add_module(f"conv{n}", conv)
        model.add_module(f"bn{n}", nn.BatchNorm2d(c))
        model.add_module(f"act{n}", nn.ReLU())
        n += 1

    for i in range(arch["depth"]):
        k, separable = arch["kernel_sizes"][i], arch["separable"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if separable:
            add(nn.Conv2d(c_in, c_in, k, stride=2, padding=k // 2, groups=c_in, bias=False), c_in)
            add(nn.Conv2d(c_in, c_out, 1, bias=False), c_out)
        else:
            add(nn.Conv2d(c_in, c_out, k, stride=2, padding=k // 2, bias=False), c_out)
        c_in = c_out
    model.add_module("pool", nn.AdaptiveAvgPool2d(1))
    model.add_module("flat", nn.Flatten())
    model.add_module("fc", nn.Linear(c_in, NUM_CLASSES))
    return model
