def arithmetic_mean(xs):
    n = len(xs)
    return sum(float(xs[i]) for i in range(n)) / n


def harmonic_mean(xs):
    n = len(xs)
    denom = sum(1.0 / float(xs[i]) for i in range(n))
    return n / denom


def geometric_mean(xs):
    n = len(xs)
    # prod(x) ** (1/n) == exp(sum(log x) / n), but without overflow
    return math.exp(sum(math.log(float(xs[i])) for i in range(n)) / n)
