@njit
def float32_running_sum(n):
    """Add np.float32(1.0) to np.float32(0.0), n times, in order."""
    partial = np.float32(0.0)
    unit = np.float32(1.0)
    j = 0
    while j < n:
        partial += unit
        j = j + 1
    return partial
