@njit
def float32_running_sum(n):
    """Sequential float32 sum of n ones (returns a float)."""
    one = np.float32(1.0)
    acc = np.float32(0.0)
    for it in range(n):
        acc += one
    # acc stays np.float32; numba hands it back as a python float
    return acc
