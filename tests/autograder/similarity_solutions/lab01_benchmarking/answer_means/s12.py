def arithmetic_mean(xs):
    vals = list(map(float, xs))
    return sum(vals) / len(vals)


def harmonic_mean(xs):
    vals = list(map(float, xs))
    recip = 0.0
    for v in vals:
        recip += 1 / v
    return len(vals) / recip


def geometric_mean(xs):
    # log2 works as well as ln: G = 2 ** mean(log2 x)
    vals = list(map(float, xs))
    return 2.0 ** (sum(math.log2(v) for v in vals) / len(vals))
