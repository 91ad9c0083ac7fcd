@njit
def float32_running_sum(n):
    s = np.float32(0.0)
    for _ in range(n):
        s += np.float32(1.0)   # float32 + float32 stays float32
    return s
