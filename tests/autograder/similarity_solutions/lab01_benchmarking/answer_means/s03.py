import statistics


def arithmetic_mean(xs):
    """Plain average, via statistics.fmean (always returns a float)."""
    return statistics.fmean(float(x) for x in xs)


def harmonic_mean(xs):
    """n / sum(1/x_i); statistics.harmonic_mean computes it exactly and rounds once."""
    return float(statistics.harmonic_mean([float(x) for x in xs]))


def geometric_mean(xs):
    """exp(mean(log x_i)); statistics.geometric_mean works through logarithms too."""
    return float(statistics.geometric_mean([float(x) for x in xs]))
