import math


def arithmetic_mean(xs):
    # math.fsum: exactly rounded sum, no loss from the order of additions
    vals = [float(v) for v in xs]
    return math.fsum(vals) / len(vals)


def harmonic_mean(xs):
    vals = [float(v) for v in xs]
    return len(vals) / math.fsum(1.0 / v for v in vals)


def geometric_mean(xs):
    vals = [float(v) for v in xs]
    mean_log = math.fsum(math.log(v) for v in vals) / len(vals)
    return math.exp(mean_log)
