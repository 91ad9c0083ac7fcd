@njit
def dot_numba(a, b):
    s = 0.0
    for pos in range(a.shape[0]):
        ai = np.float64(a[pos])
        s += ai * b[pos]
    return s
