def _cbr(cin, cout, k, s, g):
    return [nn.Conv2d(cin, cout, k, stride=s, padding=k // 2, groups=g, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


def _blocks(arch, i, cin):
    """Layers of blocks i, i+1, ... (recursive)."""
    if i == arch["depth"]:
        return [], cin
    k = arch["kernel_sizes"][i]
    cout = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
    if arch["separable"][i]:
        here = _cbr(cin, cin, k, 2, cin) + _cbr(cin, cout, 1, 1, 1)
    else:
        here = _cbr(cin, cout, k, 2, 1)
    rest, last = _blocks(arch, i + 1, cout)
    return here + rest, last


def build_model(arch):
    body, c_last = _blocks(arch, 0, STEM_CHANNELS)
    return nn.Sequential(*_cbr(IN_CHANNELS, STEM_CHANNELS, 3, 1, 1), *body,
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_last, NUM_CLASSES))
