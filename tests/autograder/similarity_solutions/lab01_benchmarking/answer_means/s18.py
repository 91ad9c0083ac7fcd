def arithmetic_mean(xs):
    n = len(xs)
    acc = 0.0
    i = 0
    while i < n:
        acc += float(xs[i])
        i += 1
    return acc / n


def harmonic_mean(xs):
    n = len(xs)
    inv = 0.0
    for i in range(n):
        inv += 1.0 / float(xs[i])
    return float(n) / inv


def geometric_mean(xs):
    # average the natural logs, then undo the log
    n = len(xs)
    mean_ln = 0.0
    for i in range(n):
        mean_ln += math.log(float(xs[i])) / n
    return math.exp(mean_ln)
