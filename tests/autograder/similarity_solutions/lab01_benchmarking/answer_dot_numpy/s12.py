def dot_numpy(a, b):
    # implicit-mode einsum: a repeated index is summed over
    s = np.einsum("i,i", a, b)
    return float(s)
