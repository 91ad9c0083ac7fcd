def dot_gflops(n, seconds):
    # FLOP/s first, then scale to giga
    flop_rate = (2 * n) / seconds
    giga_flop_rate = flop_rate / 1e9
    return float(giga_flop_rate)
