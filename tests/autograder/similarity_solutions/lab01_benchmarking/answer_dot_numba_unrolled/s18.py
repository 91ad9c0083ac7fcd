@njit
def dot_numba_unrolled(a, b):
    # float64 copies of the inputs would cost memory; convert element by element instead
    n = a.shape[0]
    c0 = 0.0
    c1 = 0.0
    c2 = 0.0
    c3 = 0.0
    tail_start = n - (n % 4)
    pos = 0
    while pos < tail_start:
        c0 += np.float64(a[pos]) * b[pos]
        c1 += np.float64(a[pos + 1]) * b[pos + 1]
        c2 += np.float64(a[pos + 2]) * b[pos + 2]
        c3 += np.float64(a[pos + 3]) * b[pos + 3]
        pos += 4
    while pos < n:
        c0 += np.float64(a[pos]) * b[pos]
        pos += 1
    result = (c0 + c1) + (c2 + c3)
    return result
