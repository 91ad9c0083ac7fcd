@njit
def float32_running_sum(n):
  total = np.float32(0)
  for idx in range(n):
    total += np.float32(1)
  return total
