def dot_loop(a, b):
    """Plain Python loop; the inputs are copied to lists of Python floats first."""
    xs = [float(v) for v in a]
    ys = [float(v) for v in b]
    out = 0.0
    for k in range(len(xs)):
        out += xs[k] * ys[k]
    return out
