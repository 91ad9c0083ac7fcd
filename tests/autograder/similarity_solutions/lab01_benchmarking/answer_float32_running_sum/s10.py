@njit
def float32_running_sum(n):
    """Float32 running sum of n ones.

    Past 2**24 the spacing of float32 values is 2, so x + 1 rounds back to x
    (round half to even) and the sum stops growing.
    """
    ONE = np.float32(1.0)
    result = np.float32(0.0)
    count = 0
    while True:
        if count >= n:
            break
        result += ONE
        count += 1
    return result
