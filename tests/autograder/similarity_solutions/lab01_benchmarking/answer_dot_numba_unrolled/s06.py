@njit
def dot_numba_unrolled(a, b):
    n = a.shape[0]
    sums = np.zeros(4)          # float64 accumulators s0..s3
    n_main = n - n % 4
    for base in range(0, n_main, 4):
        for lane in range(4):
            sums[lane] += np.float64(a[base + lane]) * b[base + lane]
    for i in range(n_main, n):
        sums[0] += np.float64(a[i]) * b[i]
    return (sums[0] + sums[1]) + (sums[2] + sums[3])
