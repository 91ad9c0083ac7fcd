@njit
def dot_numba_unrolled(a, b):
    acc0 = acc1 = acc2 = acc3 = 0.0
    blocks = len(a) // 4
    for k in range(blocks):
        j = 4 * k
        acc0 += np.float64(a[j]) * np.float64(b[j])
        acc1 += np.float64(a[j + 1]) * np.float64(b[j + 1])
        acc2 += np.float64(a[j + 2]) * np.float64(b[j + 2])
        acc3 += np.float64(a[j + 3]) * np.float64(b[j + 3])
    # leftovers (at most 3) go into the first accumulator
    for j in range(4 * blocks, len(a)):
        acc0 += np.float64(a[j]) * np.float64(b[j])
    return (acc0 + acc1) + (acc2 + acc3)
