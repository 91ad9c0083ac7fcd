from collections import defaultdict


def pareto_front(points):
    # equal points share a fate: work on the distinct points, then give back every index
    where = defaultdict(list)
    for i, p in enumerate(points):
        where[(p[0], p[1])].append(i)
    distinct = list(where)
    front = []
    for lat, acc in distinct:
        if not any(l <= lat and a >= acc and (l, a) != (lat, acc) for l, a in distinct):
            front.extend(where[(lat, acc)])
    return sorted(front)
