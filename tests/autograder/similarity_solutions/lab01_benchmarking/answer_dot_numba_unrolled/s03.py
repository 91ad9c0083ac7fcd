@njit
def dot_numba_unrolled(a, b):
    """4-way unrolled dot product: four independent dependency chains."""
    n = a.size
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    i = 0
    # note: float(x) of a float32 stays float32 inside numba, so widen explicitly
    while i + 3 < n:
        s0 += np.float64(a[i]) * b[i]
        s1 += np.float64(a[i + 1]) * b[i + 1]
        s2 += np.float64(a[i + 2]) * b[i + 2]
        s3 += np.float64(a[i + 3]) * b[i + 3]
        i += 4
    while i < n:  # tail
        s0 += np.float64(a[i]) * b[i]
        i += 1
    return (s0 + s1) + (s2 + s3)
