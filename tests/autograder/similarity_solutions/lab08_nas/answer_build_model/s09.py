class Block(nn.Module):
    """One stride-2 block: standard conv, or depthwise + pointwise."""

    def __init__(self, c_in, c_out, kernel_size, separable):
        super().__init__()
        p = kernel_size // 2
        if separable:
            self.layers = nn.Sequential(
                nn.Conv2d(c_in, c_in, kernel_size, 2, p, groups=c_in, bias=False), nn.BatchNorm2d(c_in), nn.ReLU(),
                nn.Conv2d(c_in, c_out, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU())
        else:
            self.layers = nn.Sequential(
                nn.Conv2d(c_in, c_out, kernel_size, 2, p, bias=False), nn.BatchNorm2d(c_out), nn.ReLU())

    def forward(self, x):
        return self.layers(x)


def build_model(arch):
    parts = [nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    c = 16
    for i in range(arch["depth"]):
        nxt = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        parts.append(Block(c, nxt, arch["kernel_sizes"][i], arch["separable"][i]))
        c = nxt
    parts += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10)]
    return nn.Sequential(*parts)
