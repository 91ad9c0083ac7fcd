@njit
def dot_numba_unrolled(a, b):
    """Dot product with four independent float64 accumulators, compiled by Numba (Lab 1, Part 8).

    s0 sums the products of elements 0, 4, 8, ..., s1 of 1, 5, 9, ..., s2 and s3 likewise; the last
    n % 4 products go into s0; returns (s0 + s1) + (s2 + s3) as a Python float.
    """
    n = a.shape[0]
    m = n - n % 4
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for i in range(0, m, 4):
        s0 += np.float64(a[i]) * b[i]
        s1 += np.float64(a[i + 1]) * b[i + 1]
        s2 += np.float64(a[i + 2]) * b[i + 2]
        s3 += np.float64(a[i + 3]) * b[i + 3]
    for i in range(m, n):
        s0 += np.float64(a[i]) * b[i]
    return (s0 + s1) + (s2 + s3)
