@njit
def _add_one(x):
    return x + np.float32(1.0)


@njit
def float32_running_sum(n):
    """Sequential float32 counter."""
    value = np.float32(0.0)
    for _ in range(n):
        value = _add_one(value)
    return value
