def dot_numpy(a, b):
    """Dot product of two 1-D float32 arrays with one NumPy call (Lab 1, Part 1).

    Return a Python ``float`` (wrap the NumPy result in ``float(...)``).
    """
    return float(np.dot(a, b))
