import math
import operator
from functools import reduce


def arithmetic_mean(xs):
    """Arithmetic mean, returned as a Python float."""
    n = len(xs)
    return reduce(operator.add, (float(x) for x in xs)) / n


def harmonic_mean(xs):
    """Harmonic mean: n divided by the sum of reciprocals."""
    n = len(xs)
    return n / reduce(operator.add, (1.0 / float(x) for x in xs))


def geometric_mean(xs):
    """Geometric mean through logs: exp((1/n) * sum(ln x))."""
    n = len(xs)
    return math.exp(reduce(operator.add, (math.log(float(x)) for x in xs)) / n)
