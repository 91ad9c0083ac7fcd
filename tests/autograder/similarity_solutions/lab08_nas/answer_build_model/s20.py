from functools import partial


def build_model(arch):
    Conv = partial(nn.Conv2d, bias=False)       # every conv: no bias (BatchNorm follows)

    def bn_relu(c):
        return [nn.BatchNorm2d(c), nn.ReLU()]

    net = [Conv(3, 16, 3, padding=1), *bn_relu(16)]
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        nc = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            net += [Conv(c, c, k, stride=2, padding=k // 2, groups=c), *bn_relu(c)]
            net += [Conv(c, nc, 1), *bn_relu(nc)]
        else:
            net += [Conv(c, nc, k, stride=2, padding=k // 2), *bn_relu(nc)]
        c = nc
    net += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10)]
    return nn.Sequential(*net)
