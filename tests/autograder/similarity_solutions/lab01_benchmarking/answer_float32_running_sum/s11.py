@njit
def float32_running_sum(n):
    acc = np.float32(0.0)
    if n <= 0:
        return acc
    chunk = 1000
    inc = np.float32(1.0)
    # full chunks of 1000 additions, then the rest -- still one addition after another
    for _ in range(n // chunk):
        for _ in range(chunk):
            acc += inc
    for _ in range(n % chunk):
        acc += inc
    return acc
