def count_params(arch):
    """Analytic count: conv c_out*(c_in/g)*k^2, BN 2c, Linear n*m + m."""
    w = arch["width_mult"]
    c = STEM_CHANNELS
    p = STEM_CHANNELS * IN_CHANNELS * 9 + 2 * STEM_CHANNELS
    for i, (k, is_sep) in enumerate(zip(arch["kernel_sizes"], arch["separable"])):
        c_out = make_divisible(BASE_WIDTHS[i] * w)
        p += (c * k * k + 2 * c + c_out * c + 2 * c_out) if is_sep else (c_out * c * k * k + 2 * c_out)
        c = c_out
    return p + c * NUM_CLASSES + NUM_CLASSES
