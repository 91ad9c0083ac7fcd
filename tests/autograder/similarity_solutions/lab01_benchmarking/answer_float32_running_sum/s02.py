@njit
def float32_running_sum(n):
    total = np.float32(0.0)
    i = 0
    while i < n:
        total = total + np.float32(1.0)
        i += 1
    return total
