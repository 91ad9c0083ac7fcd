def build_model(arch):
    stem = nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=1, padding=1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
    )
    blocks = []
    cin = 16
    for i in range(arch["depth"]):
        ks = arch["kernel_sizes"][i]
        cout = make_divisible(BASE_WIDTHS[i] * arch["width_mult"], 8)
        pad = ks // 2
        if not arch["separable"][i]:
            block = nn.Sequential(
                nn.Conv2d(cin, cout, ks, stride=2, padding=pad, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
            )
        else:
            block = nn.Sequential(
                nn.Conv2d(cin, cin, ks, stride=2, padding=pad, groups=cin, bias=False),
                nn.BatchNorm2d(cin),
                nn.ReLU(),
                nn.Conv2d(cin, cout, kernel_size=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
            )
        blocks.append(block)
        cin = cout
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, NUM_CLASSES))
    return nn.Sequential(stem, *blocks, head)
