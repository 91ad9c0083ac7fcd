def dot_loop(a, b):
    """Pure-Python dot product, accumulated in float64."""
    s = 0.0
    for idx, ai in enumerate(a):
        bi = b[idx]
        s += float(ai) * float(bi)
    return s
