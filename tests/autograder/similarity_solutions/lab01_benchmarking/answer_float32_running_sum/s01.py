@njit
def float32_running_sum(n):
    """Add 1.0 to a np.float32 accumulator n times, sequentially, and return it (Lab 1, Part 7).

    The accumulator and the 1.0 must both be np.float32 so every addition rounds to float32.
    """
    acc = np.float32(0.0)
    one = np.float32(1.0)
    for _ in range(n):
        acc += one
    return acc
