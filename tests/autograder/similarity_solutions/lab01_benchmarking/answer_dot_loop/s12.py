def dot_loop(a, b):
    """Dot product by recursive halving (pairwise summation), all in Python floats.

    Splitting in halves keeps the recursion depth at log2(n), so long arrays are fine.
    """

    def partial(lo, hi):
        if hi - lo <= 8:
            s = 0.0
            for i in range(lo, hi):
                s += float(a[i]) * float(b[i])
            return s
        mid = (lo + hi) // 2
        return partial(lo, mid) + partial(mid, hi)

    return partial(0, len(a))
