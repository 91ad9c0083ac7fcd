import torch


def build_model(arch):
    """Stem, arch['depth'] stride-2 blocks, global average pooling and a linear classifier."""
    L = torch.nn
    layers = [L.Conv2d(3, 16, kernel_size=3, stride=1, padding=1, bias=False), L.BatchNorm2d(16), L.ReLU()]
    in_c = 16
    for block in range(arch["depth"]):
        kernel = arch["kernel_sizes"][block]
        padding = kernel // 2
        out_c = make_divisible(BASE_WIDTHS[block] * arch["width_mult"])
        if arch["separable"][block]:
            layers.append(L.Conv2d(in_c, in_c, kernel_size=kernel, stride=2, padding=padding,
                                   groups=in_c, bias=False))
            layers.append(L.BatchNorm2d(in_c))
            layers.append(L.ReLU())
            layers.append(L.Conv2d(in_c, out_c, kernel_size=1, bias=False))
            layers.append(L.BatchNorm2d(out_c))
            layers.append(L.ReLU())
        else:
            layers.append(L.Conv2d(in_c, out_c, kernel_size=kernel, stride=2, padding=padding, bias=False))
            layers.append(L.BatchNorm2d(out_c))
            layers.append(L.ReLU())
        in_c = out_c
    layers += [L.AdaptiveAvgPool2d(1), L.Flatten(), L.Linear(in_c, NUM_CLASSES)]
    return L.Sequential(*layers)
