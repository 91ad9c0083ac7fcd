import itertools


def pareto_front(points):
    n = len(points)
    beaten = {
        i
        for i, j in itertools.product(range(n), repeat=2)
        if points[j][0] <= points[i][0]
        and points[j][1] >= points[i][1]
        and (points[j][0] < points[i][0] or points[j][1] > points[i][1])
    }
    return sorted(set(range(n)) - beaten)
