def pareto_front(points):
    front = []
    for i, p in enumerate(points):
        # points at least as good in both objectives; any of them that differs from p dominates p
        as_good = [q for q in points if q[0] <= p[0] and q[1] >= p[1]]
        if all(q[0] == p[0] and q[1] == p[1] for q in as_good):
            front.append(i)
    return front
