def arithmetic_mean(xs):
    return float(np.mean(np.asarray(xs, dtype=np.float64)))


def harmonic_mean(xs):
    x = np.asarray(xs, dtype=np.float64)
    return float(x.size / np.sum(1.0 / x))


def geometric_mean(xs):
    # via logarithms: the product itself would overflow for many large values
    x = np.asarray(xs, dtype=np.float64)
    return float(np.exp(np.mean(np.log(x))))
