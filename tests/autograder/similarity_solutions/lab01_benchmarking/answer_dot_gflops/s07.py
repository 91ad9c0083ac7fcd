def dot_gflops(n, seconds):
    FLOP_PER_ELEMENT = 2
    total_flop = FLOP_PER_ELEMENT * n
    return total_flop / seconds * 1e-9
