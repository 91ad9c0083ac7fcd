@njit
def dot_numba_unrolled(a, b):
    """ILP version of dot_numba."""
    n = a.shape[0]
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    for i in range(n // 4):
        s0 += np.float64(a[4 * i]) * b[4 * i]
        s1 += np.float64(a[4 * i + 1]) * b[4 * i + 1]
        s2 += np.float64(a[4 * i + 2]) * b[4 * i + 2]
        s3 += np.float64(a[4 * i + 3]) * b[4 * i + 3]
    leftover = n % 4
    for j in range(n - leftover, n):
        s0 += np.float64(a[j]) * b[j]
    return (s0 + s1) + (s2 + s3)
