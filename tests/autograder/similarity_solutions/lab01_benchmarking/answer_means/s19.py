def _sum_and_count(values):
    """Sum (float64) and number of items in one pass."""
    total, n = 0.0, 0
    for v in values:
        total += v
        n += 1
    return total, n


def arithmetic_mean(xs):
    total, n = _sum_and_count(float(x) for x in xs)
    return total / n


def harmonic_mean(xs):
    total, n = _sum_and_count(1.0 / float(x) for x in xs)
    return n / total


def geometric_mean(xs):
    total, n = _sum_and_count(math.log(float(x)) for x in xs)
    return math.exp(total / n)
