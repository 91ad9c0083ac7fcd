def _block(c_in, c_out, k, separable):
    if separable:
        return nn.Sequential(
            nn.Conv2d(c_in, c_in, k, stride=2, padding=k // 2, groups=c_in, bias=False),
            nn.BatchNorm2d(c_in), nn.ReLU(),
            nn.Conv2d(c_in, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out), nn.ReLU())
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, stride=2, padding=k // 2, bias=False),
                         nn.BatchNorm2d(c_out), nn.ReLU())


def build_model(arch):
    outs = [make_divisible(BASE_WIDTHS[i] * arch["width_mult"]) for i in range(arch["depth"])]
    ins = [STEM_CHANNELS] + outs[:-1]
    stem = nn.Sequential(nn.Conv2d(3, STEM_CHANNELS, 3, 1, 1, bias=False), nn.BatchNorm2d(STEM_CHANNELS), nn.ReLU())
    body = [_block(ci, co, k, s) for ci, co, k, s in zip(ins, outs, arch["kernel_sizes"], arch["separable"])]
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(outs[-1], NUM_CLASSES))
    return nn.Sequential(stem, *body, head)
