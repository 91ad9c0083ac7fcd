import math


def count_params(arch):
    # (shape of each weight tensor) -> product, summed; BN layers: 2 * channels
    shapes = [(16, 3, 3, 3)]
    bn_sizes = [16]
    channels = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        new = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            shapes += [(channels, 1, k, k), (new, channels, 1, 1)]
            bn_sizes += [channels, new]
        else:
            shapes.append((new, channels, k, k))
            bn_sizes.append(new)
        channels = new
    shapes += [(NUM_CLASSES, channels), (NUM_CLASSES,)]  # linear weight and bias
    return sum(math.prod(s) for s in shapes) + 2 * sum(bn_sizes)
