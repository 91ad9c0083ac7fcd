def pareto_front(points):
    """Indices of the non-dominated points, in increasing order (Lab 8, Part 4).

    points: a list of (latency, accuracy) pairs; lower latency and higher accuracy are better.
    j dominates i when l_j <= l_i and a_j >= a_i and (l_j < l_i or a_j > a_i); equal points are all kept.
    """
    front = []
    for i, (li, ai) in enumerate(points):
        dominated = False
        for lj, aj in points:
            if lj <= li and aj >= ai and (lj < li or aj > ai):
                dominated = True
                break
        if not dominated:
            front.append(i)
    return front
