def _product(x, y):
    """Multiply two scalars as Python floats (float64), never as np.float32."""
    return float(x) * float(y)


def dot_loop(a, b):
    """Dot product of two 1-D float32 arrays with a plain Python loop."""
    total = 0.0
    for i in range(len(a)):
        total += _product(a[i], b[i])
    return total
