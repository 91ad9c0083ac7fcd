@njit
def float32_running_sum(n):
    acc = np.zeros(1, dtype=np.float32)   # a float32 slot; stores stay float32
    for _ in range(n):
        acc[0] += np.float32(1.0)
    return acc[0]
