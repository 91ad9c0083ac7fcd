from functools import reduce


def count_params(arch):
    def add_block(acc, i):
        total, c_in = acc
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if arch["separable"][i]:
            cost = c_in * k ** 2 + 2 * c_in + c_in * c_out + 2 * c_out
        else:
            cost = c_in * c_out * k ** 2 + 2 * c_out
        return total + cost, c_out

    stem = 3 * 16 * 9 + 2 * 16
    total, c_last = reduce(add_block, range(arch["depth"]), (stem, 16))
    return total + (c_last + 1) * 10
