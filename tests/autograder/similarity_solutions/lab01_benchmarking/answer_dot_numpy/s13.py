def dot_numpy(a, b):
    """Vector dot product with NumPy 2's np.vecdot (a single call), returned as a Python float."""
    return float(np.vecdot(a, b))
