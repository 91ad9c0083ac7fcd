from functools import reduce


def count_macs(arch, input_shape):
    batch, h, w = int(input_shape[0]), int(input_shape[2]), int(input_shape[3])

    def step(state, i):
        macs, c_in, h, w = state
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        h = (h + 2 * (k // 2) - k) // 2 + 1
        w = (w + 2 * (k // 2) - k) // 2 + 1
        per_pixel = c_in * k * k + c_in * c_out if arch["separable"][i] else c_out * c_in * k * k
        return macs + h * w * per_pixel, c_out, h, w

    stem = h * w * 16 * 27
    macs, c_last, _, _ = reduce(step, range(arch["depth"]), (stem, 16, h, w))
    return batch * (macs + c_last * 10)
