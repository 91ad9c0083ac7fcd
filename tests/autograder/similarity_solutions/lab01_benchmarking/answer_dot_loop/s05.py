def dot_loop(a, b):
    """Baseline dot product: a generator over the indices, summed by Python's built-in sum."""
    n = len(a)
    # start=0.0 so an empty input still gives a float
    return sum((float(a[k]) * float(b[k]) for k in range(n)), 0.0)
