def pareto_front(points):
    if not points:
        return []
    L = np.array([float(p[0]) for p in points])
    A = np.array([float(p[1]) for p in points])
    result = []
    for i in range(len(points)):
        l, a = L[i], A[i]
        if not np.any((L <= l) & (A >= a) & ((L < l) | (A > a))):
            result.append(i)
    return result
