@njit
def float32_running_sum(n):
    vals = np.zeros(2, dtype=np.float32)
    vals[1] = 1.0               # vals[0]: accumulator, vals[1]: the float32 one
    for _ in range(n):
        vals[0] = vals[0] + vals[1]
    return vals[0]
