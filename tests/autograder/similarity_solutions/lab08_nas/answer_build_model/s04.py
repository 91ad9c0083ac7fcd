class SearchNet(nn.Module):
    """stem -> blocks -> global average pool -> linear."""

    def __init__(self, arch):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, STEM_CHANNELS, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(STEM_CHANNELS), nn.ReLU())
        body = []
        c = STEM_CHANNELS
        for i, (k, sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
            c_next = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
            if sep:
                body += [nn.Conv2d(c, c, k, 2, k // 2, groups=c, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                         nn.Conv2d(c, c_next, 1, bias=False), nn.BatchNorm2d(c_next), nn.ReLU()]
            else:
                body += [nn.Conv2d(c, c_next, k, 2, k // 2, bias=False), nn.BatchNorm2d(c_next), nn.ReLU()]
            c = c_next
        self.body = nn.Sequential(*body)
        self.fc = nn.Linear(c, NUM_CLASSES)

    def forward(self, x):
        x = self.body(self.stem(x))
        x = x.mean(dim=(2, 3))  # global average pooling
        return self.fc(x)


def build_model(arch):
    return SearchNet(arch)
