def pareto_front(points):
    pts = list(points)

    def is_dominated(item):
        i, (l, a) = item
        return any(l2 <= l and a2 >= a and (l2 < l or a2 > a) for l2, a2 in pts)

    return [i for i, _ in filter(lambda item: not is_dominated(item), enumerate(pts))]
