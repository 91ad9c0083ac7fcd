def build_model(arch):
    """The nn.Module of an architecture (Lab 8, Part 1): stem, `depth` stride-2 blocks, global pool, linear head.

    Exactly the layers given in "The search space" (channels from make_divisible, no conv bias,
    BatchNorm after every conv, ReLU after every BatchNorm). Input (batch, 3, H, W), output (batch, 10).
    """
    layers = [nn.Conv2d(IN_CHANNELS, STEM_CHANNELS, kernel_size=3, stride=1, padding=1, bias=False),
              nn.BatchNorm2d(STEM_CHANNELS), nn.ReLU()]
    c_in = STEM_CHANNELS
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            layers += [nn.Conv2d(c_in, c_in, k, stride=2, padding=k // 2, groups=c_in, bias=False),
                       nn.BatchNorm2d(c_in), nn.ReLU(),
                       nn.Conv2d(c_in, c_out, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
        else:
            layers += [nn.Conv2d(c_in, c_out, k, stride=2, padding=k // 2, bias=False),
                       nn.BatchNorm2d(c_out), nn.ReLU()]
        c_in = c_out
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, NUM_CLASSES)]
    return nn.Sequential(*layers)
