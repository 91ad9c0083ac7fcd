@njit
def float32_running_sum(n):
    # accumulator kept in single precision on purpose (Part 7)
    a = np.float32(0.0)
    b = np.float32(1.0)
    for _i in range(n):
        a = np.float32(a + b)
    return a
