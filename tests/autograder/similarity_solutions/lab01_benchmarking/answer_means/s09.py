def arithmetic_mean(xs):
    arr = np.asarray(xs, dtype=np.float64)
    return float(arr.sum() / arr.size)


def harmonic_mean(xs):
    arr = np.asarray(xs, dtype=np.float64)
    return float(arr.size / np.reciprocal(arr).sum())


def geometric_mean(xs):
    arr = np.asarray(xs, dtype=np.float64)
    log_mean = np.log(arr).sum() / arr.size
    return float(np.exp(log_mean))
