def count_params(arch):
    d = arch["depth"]
    c_out = np.array([make_divisible(b * arch["width_mult"]) for b in BASE_WIDTHS[:d]], dtype=np.int64)
    c_in = np.concatenate(([STEM_CHANNELS], c_out[:-1]))
    k2 = np.array(arch["kernel_sizes"], dtype=np.int64) ** 2
    sep = np.array(arch["separable"], dtype=bool)
    standard = c_out * c_in * k2 + 2 * c_out
    separable = c_in * k2 + 2 * c_in + c_in * c_out + 2 * c_out
    blocks = np.where(sep, separable, standard).sum()
    stem = 16 * 3 * 9 + 2 * 16
    head = int(c_out[-1]) * 10 + 10
    return int(stem + blocks + head)   # numpy ints -> Python int
