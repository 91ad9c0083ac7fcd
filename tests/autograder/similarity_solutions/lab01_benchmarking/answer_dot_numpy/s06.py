def dot_numpy(a, b):
    return float(np.vdot(a, b))  # vdot flattens its inputs; for real 1-D vectors it is the plain dot product
