def dot_numpy(a, b):
    # the @ operator on two 1-D arrays is the inner product
    return float(a @ b)
