def pareto_front(points):
    """Sort by latency; a point can only be dominated by a point that comes no later in that order."""
    order = sorted(range(len(points)), key=lambda k: (points[k][0], -points[k][1]))
    kept = []
    for pos, i in enumerate(order):
        li, ai = points[i]
        if all(not (points[j][0] <= li and points[j][1] >= ai and (points[j][0] < li or points[j][1] > ai))
               for j in order[:pos]):
            kept.append(i)
    return sorted(kept)
