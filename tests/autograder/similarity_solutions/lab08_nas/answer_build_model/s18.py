def build_model(arch):
    """Model for one architecture dict; see 'The search space'."""
    mult = arch["width_mult"]
    out = [nn.Conv2d(3, 16, (3, 3), stride=(1, 1), padding=(1, 1), bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    c_in = 16
    for block_idx, (ksize, depthwise) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        c_out = make_divisible(BASE_WIDTHS[block_idx] * mult)
        pad = ksize // 2
        if depthwise:
            stage = [
                nn.Conv2d(c_in, c_in, (ksize, ksize), stride=(2, 2), padding=(pad, pad), groups=c_in, bias=False),
                nn.BatchNorm2d(c_in),
                nn.ReLU(),
                nn.Conv2d(c_in, c_out, (1, 1), bias=False),
                nn.BatchNorm2d(c_out),
                nn.ReLU(),
            ]
        else:
            stage = [
                nn.Conv2d(c_in, c_out, (ksize, ksize), stride=(2, 2), padding=(pad, pad), bias=False),
                nn.BatchNorm2d(c_out),
                nn.ReLU(),
            ]
        out.extend(stage)
        c_in = c_out
    out.append(nn.AdaptiveAvgPool2d(1))
    out.append(nn.Flatten())
    out.append(nn.Linear(c_in, 10))
    return nn.Sequential(*out)
