@njit
def dot_numba_unrolled(a, b):
    n = a.shape[0]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    i = 0
    # main body: groups of four
    for i in range(0, n - 3, 4):
        s0 += np.float64(a[i]) * b[i]
        s1 += np.float64(a[i + 1]) * b[i + 1]
        s2 += np.float64(a[i + 2]) * b[i + 2]
        s3 += np.float64(a[i + 3]) * b[i + 3]
    # remainder: n % 4 elements at the end
    for i in range(n - n % 4, n):
        s0 += np.float64(a[i]) * b[i]
    pair01 = s0 + s1
    pair23 = s2 + s3
    return pair01 + pair23
