def dot_loop(a, b):
    """a . b = sum_i a_i * b_i, the slow pure-Python baseline."""
    total = 0.0
    for pair in zip(a, b):
        total += float(pair[0]) * float(pair[1])
    return total
