def build_model(arch):
    d = arch["depth"]
    widths = [make_divisible(w * arch["width_mult"]) for w in BASE_WIDTHS[:d]]
    seq = [nn.Conv2d(3, 16, 3, stride=1, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    c_prev = 16
    for width, k, dws in zip(widths, arch["kernel_sizes"], arch["separable"]):
        if dws:
            seq.extend([
                nn.Conv2d(c_prev, c_prev, k, stride=2, padding=k // 2, groups=c_prev, bias=False),
                nn.BatchNorm2d(c_prev),
                nn.ReLU(),
                nn.Conv2d(c_prev, width, 1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(),
            ])
        else:
            seq.extend([
                nn.Conv2d(c_prev, width, k, stride=2, padding=k // 2, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(),
            ])
        c_prev = width
    seq.extend([nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_prev, NUM_CLASSES)])
    return nn.Sequential(*seq)
