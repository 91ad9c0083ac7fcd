import itertools


def build_model(arch):
    def unit(cin, cout, k, stride=1, groups=1):
        yield nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False)
        yield nn.BatchNorm2d(cout)
        yield nn.ReLU()

    pieces = [unit(3, 16, 3)]
    cin = 16
    for i, k in enumerate(arch["kernel_sizes"]):
        cout = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            pieces += [unit(cin, cin, k, 2, cin), unit(cin, cout, 1)]
        else:
            pieces.append(unit(cin, cout, k, 2))
        cin = cout
    pieces.append([nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10)])
    return nn.Sequential(*itertools.chain.from_iterable(pieces))
