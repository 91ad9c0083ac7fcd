def build_model(arch):
    mods = [nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    cin, i = 16, 0
    while i < arch["depth"]:
        k = arch["kernel_sizes"][i]
        cout = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        sep = arch["separable"][i]
        first_out = cin if sep else cout
        mods += [nn.Conv2d(cin, first_out, k, stride=2, padding=k // 2, groups=cin if sep else 1, bias=False),
                 nn.BatchNorm2d(first_out), nn.ReLU()]
        if sep:
            mods += [nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
        cin = cout
        i += 1
    return nn.Sequential(*mods, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, NUM_CLASSES))
