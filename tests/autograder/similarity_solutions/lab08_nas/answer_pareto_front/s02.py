def dominates(p, q):
    """True when p is at least as good as q in both objectives and strictly better in one."""
    return p[0] <= q[0] and p[1] >= q[1] and (p[0] < q[0] or p[1] > q[1])


def pareto_front(points):
    return [i for i, q in enumerate(points) if not any(dominates(p, q) for p in points)]
