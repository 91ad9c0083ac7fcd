import itertools


def count_params(arch):
    widths = [make_divisible(BASE_WIDTHS[i] * arch["width_mult"]) for i in range(arch["depth"])]
    chans = [STEM_CHANNELS] + widths
    count = STEM_CHANNELS * (IN_CHANNELS * 9 + 2)
    for (cin, cout), k, sep in zip(itertools.pairwise(chans), arch["kernel_sizes"], arch["separable"]):
        if sep:
            count += cin * (k * k + 2) + cout * (cin + 2)
        else:
            count += cout * (cin * k * k + 2)
    count += (chans[-1] + 1) * NUM_CLASSES
    return count
