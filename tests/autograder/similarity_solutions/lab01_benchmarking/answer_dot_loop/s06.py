import math


def dot_loop(a, b):
    """Dot product in pure Python.

    math.fsum adds the float64 products without intermediate rounding error,
    so the result is the correctly rounded float64 sum.
    """
    terms = []
    for i in range(len(a)):
        terms.append(float(a[i]) * float(b[i]))
    return math.fsum(terms)
