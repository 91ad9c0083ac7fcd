def _floats(xs):
    """Copy any sequence (list, tuple, NumPy array) into a list of Python floats."""
    return [float(x) for x in xs]


def arithmetic_mean(xs):
    values = _floats(xs)
    return sum(values) / len(values)


def harmonic_mean(xs):
    values = _floats(xs)
    return len(values) / sum(1.0 / v for v in values)


def geometric_mean(xs):
    values = _floats(xs)
    logs = [math.log(v) for v in values]
    return math.exp(sum(logs) / len(logs))
