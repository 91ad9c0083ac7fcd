def dot_numpy(a, b):
    """Dot product of two 1-D float32 arrays with one NumPy call.

    np.dot hands the work to BLAS (sdot for float32), which accumulates in float32,
    so the last digits may differ from the float64 loops.
    """
    d = np.dot(a, b)
    return float(d)
