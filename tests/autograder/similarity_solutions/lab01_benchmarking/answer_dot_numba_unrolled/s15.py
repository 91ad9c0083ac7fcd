@njit
def dot_numba_unrolled(a, b):
    """Dot product with four independent float64 accumulators, compiled by Numba (Lab 1, Part 8).

    s0 sums the products of elements 0, 4, 8, ..., s1 of 1, 5, 9, ..., s2 and s3 likewise; the last
    n % 4 products go into s0; returns (s0 + s1) + (s2 + s3) as a Python float.
    """
    sum0 = 0.0
    sum1 = 0.0
    sum2 = 0.0
    sum3 = 0.0
    size = a.shape[0]
    i = 0
    for _ in range(size // 4):
        sum0 += np.float64(a[i]) * np.float64(b[i])
        sum1 += np.float64(a[i + 1]) * np.float64(b[i + 1])
        sum2 += np.float64(a[i + 2]) * np.float64(b[i + 2])
        sum3 += np.float64(a[i + 3]) * np.float64(b[i + 3])
        i += 4
    while i < size:
        sum0 += np.float64(a[i]) * np.float64(b[i])
        i += 1
    return (sum0 + sum1) + (sum2 + sum3)
