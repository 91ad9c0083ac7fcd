def arithmetic_mean(xs):
    a = np.array(xs, dtype=float)
    return float(np.sum(a) / len(a))


def harmonic_mean(xs):
    a = np.array(xs, dtype=float)
    return float(len(a) / np.sum(1 / a))


def geometric_mean(xs):
    """Base-10 logs: G = 10 ** mean(log10 x). Never multiplies the values together."""
    a = np.array(xs, dtype=float)
    return float(10.0 ** np.mean(np.log10(a)))
