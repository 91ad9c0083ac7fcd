def arithmetic_mean(xs):
    """Arithmetic mean (1/n) * sum(x_i) of a non-empty sequence, as a Python float (Lab 1, Part 3)."""
    return sum(float(x) for x in xs) / len(xs)


def harmonic_mean(xs):
    """Harmonic mean n / sum(1 / x_i) of a non-empty sequence of positive numbers, as a Python float."""
    return len(xs) / sum(1.0 / float(x) for x in xs)


def geometric_mean(xs):
    """Geometric mean (prod x_i) ** (1/n) of positive numbers, computed as exp(mean(log x_i))."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
