@njit
def float32_running_sum(n):
    counter = np.float32(0.0)
    for step in range(0, n):
        counter = counter + np.float32(1.0)
    return counter
