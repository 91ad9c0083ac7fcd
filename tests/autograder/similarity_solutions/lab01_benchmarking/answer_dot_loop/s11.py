def dot_loop(a, b):
    if len(a) != len(b):
        raise ValueError("a and b must have the same length")
    total = 0.0
    for i in range(len(a)):
        ai = float(a[i])  # float(...) first: 0.0 + np.float32 would stay float32 under NumPy 2
        bi = float(b[i])
        total += ai * bi
    return total
