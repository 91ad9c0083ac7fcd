def arithmetic_mean(xs):
    if len(xs) == 0:
        raise ValueError("arithmetic_mean of an empty sequence")
    return sum(map(float, xs)) / len(xs)


def harmonic_mean(xs):
    if len(xs) == 0:
        raise ValueError("harmonic_mean of an empty sequence")
    if any(x <= 0 for x in xs):
        raise ValueError("harmonic_mean needs positive numbers")
    return len(xs) / sum(1.0 / float(x) for x in xs)


def geometric_mean(xs):
    if len(xs) == 0:
        raise ValueError("geometric_mean of an empty sequence")
    if any(x <= 0 for x in xs):
        raise ValueError("geometric_mean needs positive numbers")
    return math.exp(sum(map(math.log, xs)) / len(xs))
