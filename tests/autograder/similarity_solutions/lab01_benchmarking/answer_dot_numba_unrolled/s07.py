@njit
def dot_numba_unrolled(a, b):
    """Break the add-latency chain with 4 accumulators (ILP)."""
    length = a.shape[0]
    rem = length % 4
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for i in range(0, length - rem, 4):
        p0 = np.float64(a[i]) * b[i]
        p1 = np.float64(a[i + 1]) * b[i + 1]
        p2 = np.float64(a[i + 2]) * b[i + 2]
        p3 = np.float64(a[i + 3]) * b[i + 3]
        s0 += p0
        s1 += p1
        s2 += p2
        s3 += p3
    # remaining elements, in order, into s0
    if rem >= 1:
        s0 += np.float64(a[length - rem]) * b[length - rem]
    if rem >= 2:
        s0 += np.float64(a[length - rem + 1]) * b[length - rem + 1]
    if rem == 3:
        s0 += np.float64(a[length - 1]) * b[length - 1]
    return (s0 + s1) + (s2 + s3)
