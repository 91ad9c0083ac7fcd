def arithmetic_mean(xs):
    data = np.asarray(xs, dtype=np.float64)
    return float(np.average(data))


def harmonic_mean(xs):
    data = np.asarray(xs, dtype=np.float64)
    n = data.shape[0]
    return n / float(np.sum(np.reciprocal(data)))


def geometric_mean(xs):
    data = np.asarray(xs, dtype=np.float64)
    return math.exp(float(np.average(np.log(data))))
