def dot_numpy(a, b):
    """sum_i a_i b_i written as an Einstein summation."""
    return float(np.einsum("i,i->", a, b))
