@njit
def float32_running_sum(n):
    """Counts to n with a float32, which gets stuck at 16,777,216 = 2**24."""
    f32 = np.float32
    counter = f32(0.0)
    increment = f32(1.0)
    remaining = n
    while remaining > 0:
        counter += increment
        remaining -= 1
    return counter
