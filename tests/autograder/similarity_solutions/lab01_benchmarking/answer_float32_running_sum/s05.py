@njit
def float32_running_sum(n):
    """Add 1.0 to a np.float32 accumulator n times, sequentially, and return it (Lab 1, Part 7)."""
    running = np.float32(0.0)
    for k in range(1, n + 1):
        # cast again to be sure the accumulator never widens to float64
        running = np.float32(running + np.float32(1.0))
    return running
