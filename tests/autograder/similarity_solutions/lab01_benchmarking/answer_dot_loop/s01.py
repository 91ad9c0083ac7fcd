def dot_loop(a, b):
    """Dot product of two 1-D float32 arrays with a plain Python loop (Lab 1, Part 1).

    Loop over the indices, multiply a[i] by b[i] and add the product to a Python
    float accumulator (float64). Return the sum as a Python ``float``.
    This is the baseline: no NumPy reductions, no Numba.

    Example: dot_loop(np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)) == 32.0
    """
    total = 0.0
    for i in range(len(a)):
        total += float(a[i]) * float(b[i])
    return total
