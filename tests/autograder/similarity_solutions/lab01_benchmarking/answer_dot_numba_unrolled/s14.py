@njit
def dot_numba_unrolled(a, b):
    n = len(a)
    acc = np.zeros(4, dtype=np.float64)
    limit = n - n % 4
    for i in range(limit):
        acc[i % 4] += np.float64(a[i]) * b[i]
    for i in range(limit, n):     # tail into s0, after the main loop
        acc[0] += np.float64(a[i]) * b[i]
    return float((acc[0] + acc[1]) + (acc[2] + acc[3]))
