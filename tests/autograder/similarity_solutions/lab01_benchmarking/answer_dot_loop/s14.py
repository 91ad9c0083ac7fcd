import operator


def dot_loop(a, b):
    """Sum of a[i] * b[i] with built-ins only (map + sum), no NumPy reductions."""
    return sum(map(operator.mul, map(float, a), map(float, b)), 0.0)
