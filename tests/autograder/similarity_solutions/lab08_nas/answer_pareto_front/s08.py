from functools import reduce


def _dom(p, q):
    return p[0] <= q[0] and p[1] >= q[1] and (p[0] < q[0] or p[1] > q[1])


def pareto_front(points):
    def add(front, i):
        # the new point joins unless a front point dominates it; it evicts the points it dominates
        p = points[i]
        if any(_dom(points[j], p) for j in front):
            return front
        return [j for j in front if not _dom(p, points[j])] + [i]

    return sorted(reduce(add, range(len(points)), []))
