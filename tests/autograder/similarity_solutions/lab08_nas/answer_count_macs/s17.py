def count_macs(arch, input_shape):
    batch, _, h, w = input_shape
    layer_macs = [h * w * 16 * 3 * 9]
    cin = 16
    for idx in range(arch["depth"]):
        k = arch["kernel_sizes"][idx]
        cout = make_divisible(BASE_WIDTHS[idx] * arch["width_mult"])
        h = (h + 2 * (k // 2) - k) // 2 + 1
        w = (w + 2 * (k // 2) - k) // 2 + 1
        if arch["separable"][idx]:
            layer_macs += [h * w * cin * k * k, h * w * cout * cin]
        else:
            layer_macs.append(h * w * cout * cin * k * k)
        cin = cout
    layer_macs.append(cin * 10)
    return int(batch) * int(sum(layer_macs))
