@njit
def dot_numba(a, b):
    result = 0.0
    for k, ak in enumerate(a):
        result += np.float64(ak) * b[k]
    return result
