import math


def count_macs(arch, input_shape):
    b, _, h, w = map(int, input_shape)
    terms = []          # each term: (h_out, w_out, c_out, c_in // groups, k, k)
    terms.append((h, w, 16, 3, 3, 3))
    c = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        co = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        h, w = (h + 2 * (k // 2) - k) // 2 + 1, (w + 2 * (k // 2) - k) // 2 + 1
        if arch["separable"][i]:
            terms.append((h, w, c, 1, k, k))
            terms.append((h, w, co, c, 1, 1))
        else:
            terms.append((h, w, co, c, k, k))
        c = co
    terms.append((c, NUM_CLASSES))
    return b * sum(math.prod(t) for t in terms)
