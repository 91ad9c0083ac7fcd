from collections import OrderedDict


def build_model(arch):
    named = OrderedDict()
    named["stem_conv"] = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
    named["stem_bn"] = nn.BatchNorm2d(16)
    named["stem_relu"] = nn.ReLU()
    prev = 16
    for b in range(arch["depth"]):
        k = arch["kernel_sizes"][b]
        width = make_divisible(BASE_WIDTHS[b] * arch["width_mult"])
        if arch["separable"][b]:
            named[f"b{b}_dw"] = nn.Conv2d(prev, prev, k, 2, k // 2, groups=prev, bias=False)
            named[f"b{b}_dw_bn"] = nn.BatchNorm2d(prev)
            named[f"b{b}_dw_relu"] = nn.ReLU()
            named[f"b{b}_pw"] = nn.Conv2d(prev, width, 1, bias=False)
            named[f"b{b}_pw_bn"] = nn.BatchNorm2d(width)
            named[f"b{b}_pw_relu"] = nn.ReLU()
        else:
            named[f"b{b}_conv"] = nn.Conv2d(prev, width, k, 2, k // 2, bias=False)
            named[f"b{b}_bn"] = nn.BatchNorm2d(width)
            named[f"b{b}_relu"] = nn.ReLU()
        prev = width
    named["pool"] = nn.AdaptiveAvgPool2d(1)
    named["flatten"] = nn.Flatten()
    named["head"] = nn.Linear(prev, 10)
    return nn.Sequential(named)
