def pareto_front(points):
    n = len(points)
    if n == 0:
        return []
    lat = np.array([p[0] for p in points], dtype=float)
    acc = np.array([p[1] for p in points], dtype=float)
    order = np.lexsort((-acc, lat))         # by latency, then best accuracy first
    keep = np.zeros(n, dtype=bool)
    best_before = -np.inf                   # best accuracy at strictly lower latency
    start = 0
    while start < n:
        stop = start
        while stop < n and lat[order[stop]] == lat[order[start]]:
            stop += 1
        group = order[start:stop]
        top = acc[group].max()
        if top > best_before:
            keep[group[acc[group] == top]] = True
            best_before = top
        start = stop
    return [int(i) for i in np.flatnonzero(keep)]
