def arithmetic_mean(xs):
    total = 0.0
    n = 0
    for x in xs:
        total += float(x)
        n += 1
    return total / n


def harmonic_mean(xs):
    inv_sum = 0.0
    n = 0
    for x in xs:
        inv_sum += 1.0 / float(x)
        n += 1
    return n / inv_sum


def geometric_mean(xs):
    log_sum = 0.0
    n = 0
    for x in xs:
        log_sum += math.log(float(x))
        n += 1
    return math.exp(log_sum / n)
