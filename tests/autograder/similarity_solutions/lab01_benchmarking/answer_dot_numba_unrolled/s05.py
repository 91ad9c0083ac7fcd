@njit
def dot_numba_unrolled(a, b):
    """Dot product with four float64 accumulators."""
    x = a.astype(np.float64)   # convert once up front
    y = b.astype(np.float64)
    n = x.shape[0]
    r = n % 4
    t0 = 0.0
    t1 = 0.0
    t2 = 0.0
    t3 = 0.0
    for i in range(0, n - r, 4):
        t0 += x[i] * y[i]
        t1 += x[i + 1] * y[i + 1]
        t2 += x[i + 2] * y[i + 2]
        t3 += x[i + 3] * y[i + 3]
    for i in range(n - r, n):
        t0 += x[i] * y[i]
    return (t0 + t1) + (t2 + t3)
