@njit
def dot_numba_unrolled(a, b):
    # four chains that do not depend on each other -> the core can overlap them
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    n = a.shape[0]
    n_tail = n % 4
    stop = n - n_tail
    k = 0
    while k < stop:
        a0 += np.float64(a[k]) * b[k]
        a1 += np.float64(a[k + 1]) * b[k + 1]
        a2 += np.float64(a[k + 2]) * b[k + 2]
        a3 += np.float64(a[k + 3]) * b[k + 3]
        k += 4
    for t in range(n_tail):
        a0 += np.float64(a[stop + t]) * b[stop + t]
    return (a0 + a1) + (a2 + a3)
