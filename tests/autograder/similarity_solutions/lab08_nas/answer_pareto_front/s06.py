def pareto_front(points):
    n = len(points)
    dominated = set()
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            (li, ai), (lj, aj) = points[i], points[j]
            if lj <= li and aj >= ai and (lj < li or aj > ai):
                dominated.add(i)
    return [i for i in range(n) if i not in dominated]
