def count_macs(arch, input_shape):
    batch_size = int(input_shape[0])
    height, width = int(input_shape[2]), int(input_shape[3])

    def spatial(n, k):                       # stride 2, padding k // 2
        return (n + 2 * (k // 2) - k) // 2 + 1

    result = height * width * STEM_CHANNELS * IN_CHANNELS * 9
    prev = STEM_CHANNELS
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        cur = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        height, width = spatial(height, k), spatial(width, k)
        area = height * width
        if arch["separable"][i]:
            result += area * prev * k * k   # depthwise conv: groups = prev, c_in/g = 1
            result += area * cur * prev     # pointwise conv
        else:
            result += area * cur * prev * k * k
        prev = cur
    result += prev * NUM_CLASSES            # linear head, bias not counted
    return batch_size * result
