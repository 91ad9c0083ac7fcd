def arithmetic_mean(xs):
    x = np.asarray(xs, dtype=np.float64)
    return float(np.add.reduce(x) / x.size)


def harmonic_mean(xs):
    # reciprocal of the mean of reciprocals
    x = np.asarray(xs, dtype=np.float64)
    return float(1.0 / np.mean(1.0 / x))


def geometric_mean(xs):
    x = np.asarray(xs, dtype=np.float64)
    return float(np.exp(np.log(x).mean()))
