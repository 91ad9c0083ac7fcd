def dot_numpy(a, b):
    """One NumPy call (the ndarray.dot method); float32 accumulation inside BLAS."""
    return float(a.dot(b))
