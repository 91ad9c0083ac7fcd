class ArchNet(nn.Module):
    def __init__(self, arch):
        super().__init__()
        feats = [nn.Conv2d(IN_CHANNELS, STEM_CHANNELS, 3, 1, 1, bias=False),
                 nn.BatchNorm2d(STEM_CHANNELS), nn.ReLU()]
        width = STEM_CHANNELS
        for i, (k, sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
            new_width = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
            if sep:
                feats.append(nn.Conv2d(width, width, k, 2, k // 2, groups=width, bias=False))
                feats.append(nn.BatchNorm2d(width))
                feats.append(nn.ReLU())
                feats.append(nn.Conv2d(width, new_width, 1, bias=False))
            else:
                feats.append(nn.Conv2d(width, new_width, k, 2, k // 2, bias=False))
            feats.append(nn.BatchNorm2d(new_width))
            feats.append(nn.ReLU())
            width = new_width
        self.features = nn.Sequential(*feats)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(width, NUM_CLASSES)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.classifier(x.flatten(1))


def build_model(arch):
    return ArchNet(arch)
