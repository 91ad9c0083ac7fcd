def arithmetic_mean(xs):
    """Arithmetic mean of a non-empty sequence."""
    total = 0.0
    for x in xs:
        total += float(x)
    return total / len(xs)


def harmonic_mean(xs):
    """H = 1 / A(1/x): the reciprocal of the mean reciprocal."""
    return 1.0 / arithmetic_mean([1.0 / float(x) for x in xs])


def geometric_mean(xs):
    """G = exp(A(log x)), i.e. the arithmetic mean taken in log space."""
    return math.exp(arithmetic_mean([math.log(x) for x in xs]))
