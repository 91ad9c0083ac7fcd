@njit
def dot_numba_unrolled(a, b):
    """Four float64 partial sums, s_k over indices congruent to k mod 4, tail into s0."""
    n = a.shape[0]
    full = n // 4 * 4
    s0 = np.float64(0.0)
    s1 = np.float64(0.0)
    s2 = np.float64(0.0)
    s3 = np.float64(0.0)
    for i in range(0, full, 4):
        ai0, ai1, ai2, ai3 = np.float64(a[i]), np.float64(a[i + 1]), np.float64(a[i + 2]), np.float64(a[i + 3])
        s0 += ai0 * b[i]
        s1 += ai1 * b[i + 1]
        s2 += ai2 * b[i + 2]
        s3 += ai3 * b[i + 3]
    for i in range(full, n):
        s0 += np.float64(a[i]) * b[i]
    return (s0 + s1) + (s2 + s3)
