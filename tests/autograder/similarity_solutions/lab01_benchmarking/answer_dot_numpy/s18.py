def dot_numpy(a, b):
    out = b @ a
    return float(out)
