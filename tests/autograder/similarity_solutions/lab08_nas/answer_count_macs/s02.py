def _out_size(n, k, stride, pad):
    return (n + 2 * pad - k) // stride + 1


def count_macs(arch, input_shape):
    batch, _, H, W = input_shape
    macs = H * W * 16 * 3 * 9          # stem keeps the resolution (k=3, s=1, p=1)
    c = 16
    for i, (k, sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        H, W = _out_size(H, k, 2, k // 2), _out_size(W, k, 2, k // 2)
        c_next = make_divisible(BASE_WIDTHS[i] * arch["width_mult"])
        if sep:
            macs += H * W * c * k * k       # depthwise
            macs += H * W * c_next * c      # pointwise 1x1
        else:
            macs += H * W * c_next * c * k * k
        c = c_next
    macs += c * 10
    return int(batch * macs)
