def build_model(arch):
    depth, wm = arch["depth"], arch["width_mult"]
    net = []
    net.append(nn.Conv2d(3, 16, kernel_size=3, stride=1, padding=1, bias=False))
    net.append(nn.BatchNorm2d(16))
    net.append(nn.ReLU(inplace=True))
    channels = 16
    for i in range(depth):
        kernel = arch["kernel_sizes"][i]
        out_ch = make_divisible(BASE_WIDTHS[i] * wm)
        if arch["separable"][i]:
            # depthwise k x k, stride 2
            net.append(nn.Conv2d(channels, channels, kernel_size=kernel, stride=2, padding=kernel // 2,
                                 groups=channels, bias=False))
            net.append(nn.BatchNorm2d(channels))
            net.append(nn.ReLU(inplace=True))
            # pointwise 1 x 1
            net.append(nn.Conv2d(channels, out_ch, kernel_size=1, bias=False))
        else:
            net.append(nn.Conv2d(channels, out_ch, kernel_size=kernel, stride=2, padding=kernel // 2, bias=False))
        net.append(nn.BatchNorm2d(out_ch))
        net.append(nn.ReLU(inplace=True))
        channels = out_ch
    net.append(nn.AdaptiveAvgPool2d(output_size=1))
    net.append(nn.Flatten())
    net.append(nn.Linear(channels, 10, bias=True))
    return nn.Sequential(*net)
