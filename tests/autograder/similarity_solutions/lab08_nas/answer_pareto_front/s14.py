def pareto_front(points):
    def not_dominated(i):
        li, ai = points[i]
        return all(not (lj <= li and aj >= ai and (lj < li or aj > ai)) for lj, aj in points)

    return [i for i in range(len(points)) if not_dominated(i)]
