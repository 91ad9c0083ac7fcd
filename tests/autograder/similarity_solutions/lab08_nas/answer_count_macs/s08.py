def count_macs(arch, input_shape):
    batch = int(input_shape[0])
    h, w = int(input_shape[-2]), int(input_shape[-1])
    per_image = h * w * 16 * 3 * 3 * 3
    c = 16
    i = 0
    while i < arch["depth"]:
        k = arch["kernel_sizes"][i]
        nc = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        # stride 2, padding k//2: (n + 2*(k//2) - k)//2 + 1
        h = (h + 2 * (k // 2) - k) // 2 + 1
        w = (w + 2 * (k // 2) - k) // 2 + 1
        pixels = h * w
        if arch["separable"][i]:
            per_image += pixels * (c * k * k + c * nc)
        else:
            per_image += pixels * nc * c * k * k
        c = nc
        i += 1
    per_image += c * 10
    return batch * per_image
