@njit
def float32_running_sum(n):
    """Add 1.0 to a np.float32 accumulator n times, sequentially, and return it."""
    one32 = np.float32(1.0)
    sum32 = one32 - one32      # float32 zero
    for _ in range(n):
        sum32 = sum32 + one32
    return sum32
