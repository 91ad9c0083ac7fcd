@njit
def dot_numba_unrolled(a, b):
    """Four accumulators; order: main blocks, then tail into s0, then (s0+s1)+(s2+s3)."""
    n = a.shape[0]
    nblk = n >> 2
    s = [0.0, 0.0, 0.0, 0.0]
    for blk in range(nblk):
        off = blk << 2
        s[0] += np.float64(a[off]) * b[off]
        s[1] += np.float64(a[off + 1]) * b[off + 1]
        s[2] += np.float64(a[off + 2]) * b[off + 2]
        s[3] += np.float64(a[off + 3]) * b[off + 3]
    for i in range(nblk << 2, n):
        s[0] += np.float64(a[i]) * b[i]
    return (s[0] + s[1]) + (s[2] + s[3])
