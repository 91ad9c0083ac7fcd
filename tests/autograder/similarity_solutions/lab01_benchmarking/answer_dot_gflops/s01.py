def dot_gflops(n, seconds):
    """Achieved GFLOP/s of a length-n dot product that took ``seconds`` (Lab 1, Part 4).

    A dot product does 2n floating-point operations; 1 GFLOP/s is 1e9 FLOP/s.
    Example: dot_gflops(1_000_000, 1e-3) == 2.0
    """
    return 2 * n / seconds / 1e9
