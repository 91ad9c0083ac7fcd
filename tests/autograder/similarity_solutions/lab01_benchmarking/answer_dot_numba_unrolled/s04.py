@njit
def dot_numba_unrolled(a, b):
    # one loop, dispatch on i % 4; the tail (i >= main) always lands in s0
    n = len(a)
    main = (n // 4) * 4
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    for i in range(n):
        p = np.float64(a[i]) * b[i]
        if i >= main:
            s0 += p
        else:
            lane = i % 4
            if lane == 0:
                s0 += p
            elif lane == 1:
                s1 += p
            elif lane == 2:
                s2 += p
            else:
                s3 += p
    return (s0 + s1) + (s2 + s3)
