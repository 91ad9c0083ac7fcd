def dot_numpy(a, b):
    # multi_dot with two 1-D vectors reduces to their inner product
    return float(np.linalg.multi_dot([a, b]))
