def count_macs(arch, input_shape):
    n_img = int(input_shape[0])
    hw = (int(input_shape[2]), int(input_shape[3]))
    total = hw[0] * hw[1] * 16 * 27          # stem, same resolution
    c_in = 16
    for i in range(arch["depth"]):
        k = arch["kernel_sizes"][i]
        c_out = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        hw = tuple((d + 2 * (k // 2) - k) // 2 + 1 for d in hw)
        pix = hw[0] * hw[1]
        total += pix * (c_in * k * k + c_in * c_out) if arch["separable"][i] else pix * c_in * c_out * k * k
        c_in = c_out
    return n_img * (total + c_in * 10)
