@njit
def dot_numba_unrolled(a, b):
    """Dot product with four independent float64 accumulators (Lab 1, Part 8)."""
    # YOUR CODE HERE
    total0 = 0.0
    total1 = 0.0
    total2 = 0.0
    total3 = 0.0
    n = a.shape[0]
    quads = n // 4
    for q in range(quads):
        idx = q * 4
        total0 = total0 + np.float64(a[idx]) * b[idx]
        total1 = total1 + np.float64(a[idx + 1]) * b[idx + 1]
        total2 = total2 + np.float64(a[idx + 2]) * b[idx + 2]
        total3 = total3 + np.float64(a[idx + 3]) * b[idx + 3]
    start_tail = quads * 4
    for idx in range(start_tail, n):
        total0 = total0 + np.float64(a[idx]) * b[idx]
    left = total0 + total1
    right = total2 + total3
    return left + right
