@njit
def dot_numba_unrolled(a, b):
    """Unrolled by 4. Returns (s0 + s1) + (s2 + s3)."""
    n = a.shape[0]
    if n == 0:
        return 0.0
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    i = 0
    while i < n - 3:
        s0 += a[i] * np.float64(b[i])
        s1 += a[i + 1] * np.float64(b[i + 1])
        s2 += a[i + 2] * np.float64(b[i + 2])
        s3 += a[i + 3] * np.float64(b[i + 3])
        i += 4
    for j in range(i, n):
        s0 += a[j] * np.float64(b[j])
    return (s0 + s1) + (s2 + s3)
