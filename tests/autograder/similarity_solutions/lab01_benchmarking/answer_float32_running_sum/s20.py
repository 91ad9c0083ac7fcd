@njit
def _accumulate(start, increment, times):
    for _ in range(times):
        start += increment
    return start


@njit
def float32_running_sum(n):
    # generic helper, called with float32 start and step so all adds are float32
    return _accumulate(np.float32(0.0), np.float32(1.0), n)
