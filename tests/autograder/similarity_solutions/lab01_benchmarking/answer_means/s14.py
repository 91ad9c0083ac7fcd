def arithmetic_mean(xs):
    s = 0.0
    count = 0
    for count, x in enumerate(xs, start=1):
        s += float(x)
    return s / count


def harmonic_mean(xs):
    s = 0.0
    count = 0
    for count, x in enumerate(xs, start=1):
        s += 1.0 / float(x)
    return count / s


def geometric_mean(xs):
    s = 0.0
    count = 0
    for count, x in enumerate(xs, start=1):
        s += math.log(float(x))
    return math.exp(s / count)
