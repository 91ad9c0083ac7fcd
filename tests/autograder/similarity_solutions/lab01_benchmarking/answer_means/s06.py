from functools import reduce


def arithmetic_mean(xs):
    """(1/n) * sum(x_i) as a Python float."""
    s = reduce(lambda acc, x: acc + float(x), xs, 0.0)
    return s / len(xs)


def harmonic_mean(xs):
    """n / sum(1/x_i) for positive x_i."""
    s = reduce(lambda acc, x: acc + 1.0 / float(x), xs, 0.0)
    return len(xs) / s


def geometric_mean(xs):
    """exp of the mean log; never forms the product itself."""
    s = reduce(lambda acc, x: acc + math.log(float(x)), xs, 0.0)
    return math.exp(s / len(xs))
