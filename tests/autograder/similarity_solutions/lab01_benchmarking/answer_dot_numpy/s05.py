def dot_numpy(a, b):
    """Dot product via np.inner (same as np.dot for 1-D arrays)."""
    result = np.inner(a, b)
    return float(result)
