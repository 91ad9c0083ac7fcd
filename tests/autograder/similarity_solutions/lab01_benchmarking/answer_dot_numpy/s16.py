def dot_numpy(a, b):
    # Single vectorised call; NumPy's float32 dot accumulates in float32.
    prod_sum = a.dot(b)
    return float(prod_sum)
