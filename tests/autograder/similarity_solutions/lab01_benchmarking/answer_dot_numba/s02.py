from numba import float64


@njit
def dot_numba(a, b):
    # numba's float64 type doubles as a cast; float(...) would keep float32 here
    total = 0.0
    for i in range(len(a)):
        total += float64(a[i]) * float64(b[i])
    return total
