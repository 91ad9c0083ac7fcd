@njit
def dot_numba_unrolled(a, b):
  s0 = 0.0; s1 = 0.0; s2 = 0.0; s3 = 0.0
  n = a.shape[0]
  last = n - (n & 3)          # n & 3 == n % 4
  for i in range(0, last, 4):
    s0 += np.float64(a[i]) * b[i]
    s1 += np.float64(a[i+1]) * b[i+1]
    s2 += np.float64(a[i+2]) * b[i+2]
    s3 += np.float64(a[i+3]) * b[i+3]
  for i in range(last, n):
    s0 += np.float64(a[i]) * b[i]
  return (s0 + s1) + (s2 + s3)
