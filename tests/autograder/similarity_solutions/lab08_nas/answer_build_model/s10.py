import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, arch):
        super().__init__()
        self.features = nn.ModuleList()
        self.features.append(nn.Conv2d(3, 16, 3, padding=1, bias=False))
        self.features.append(nn.BatchNorm2d(16))
        self.features.append(nn.ReLU())
        c = 16
        for i in range(arch["depth"]):
            k = arch["kernel_sizes"][i]
            out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
            if arch["separable"][i]:
                self.features.extend([nn.Conv2d(c, c, k, stride=2, padding=k // 2, groups=c, bias=False),
                                      nn.BatchNorm2d(c), nn.ReLU(),
                                      nn.Conv2d(c, out, 1, bias=False), nn.BatchNorm2d(out), nn.ReLU()])
            else:
                self.features.extend([nn.Conv2d(c, out, k, stride=2, padding=k // 2, bias=False),
                                      nn.BatchNorm2d(out), nn.ReLU()])
            c = out
        self.classifier = nn.Linear(c, 10)

    def forward(self, x):
        for layer in self.features:
            x = layer(x)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.classifier(x)


def build_model(arch):
    return Net(arch)
