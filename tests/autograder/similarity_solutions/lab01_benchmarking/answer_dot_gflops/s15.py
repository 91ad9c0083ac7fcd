def _flops_of_dot(n):
    """A dot product of length n counts as n multiplies plus n adds."""
    return 2 * n


def dot_gflops(n, seconds):
    return _flops_of_dot(n) / seconds / 1e9
