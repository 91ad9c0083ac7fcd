@njit
def dot_numba_unrolled(a, b):
    n = a.shape[0]
    n4 = n - n % 4
    s0 = s1 = s2 = s3 = 0.0
    for i in range(0, n4, 4):
        # update all four partial sums "at once"; none of them reads another
        s0, s1, s2, s3 = (s0 + np.float64(a[i]) * b[i],
                          s1 + np.float64(a[i + 1]) * b[i + 1],
                          s2 + np.float64(a[i + 2]) * b[i + 2],
                          s3 + np.float64(a[i + 3]) * b[i + 3])
    i = n4
    while i < n:
        s0 = s0 + np.float64(a[i]) * b[i]
        i += 1
    return (s0 + s1) + (s2 + s3)
