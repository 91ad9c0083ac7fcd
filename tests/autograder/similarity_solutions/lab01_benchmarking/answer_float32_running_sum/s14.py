@njit
def float32_running_sum(n):
    acc = np.float32(0.0)
    for left in range(n, 0, -1):   # count down, order of the adds does not matter here: all are +1
        acc += np.float32(1.0)
    return acc
