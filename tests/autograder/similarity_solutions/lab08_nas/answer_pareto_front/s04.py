from itertools import groupby


def pareto_front(points):
    order = sorted(range(len(points)), key=lambda i: points[i][0])
    best_faster = None           # best accuracy among strictly faster points
    keep = []
    for _, group in groupby(order, key=lambda i: points[i][0]):
        group = list(group)
        top = max(points[i][1] for i in group)
        if best_faster is None or top > best_faster:
            # only the most accurate points of this latency survive, and only if they beat every faster one
            keep.extend(i for i in group if points[i][1] == top)
            best_faster = top
    return sorted(keep)
