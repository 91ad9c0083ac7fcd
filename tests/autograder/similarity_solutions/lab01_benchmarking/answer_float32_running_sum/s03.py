@njit
def float32_running_sum(n):
    # both operands float32 -> every add is rounded to float32 (stalls at 2**24)
    step = np.float32(1)
    s = np.float32(0)
    for i in range(n):
        s = s + step
    return s
