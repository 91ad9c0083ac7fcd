def dot_numpy(a, b):
    """a . b == b . a, so the argument order does not matter."""
    return float(np.dot(b, a))
