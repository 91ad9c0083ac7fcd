@njit
def _prod(a, b, i):
    return np.float64(a[i]) * np.float64(b[i])


@njit
def dot_numba_unrolled(a, b):
    n = len(a)
    s0 = s1 = s2 = s3 = 0.0
    i = 0
    for _ in range(n // 4):
        s0 += _prod(a, b, i)
        s1 += _prod(a, b, i + 1)
        s2 += _prod(a, b, i + 2)
        s3 += _prod(a, b, i + 3)
        i += 4
    for _ in range(n % 4):
        s0 += _prod(a, b, i)
        i += 1
    return (s0 + s1) + (s2 + s3)
