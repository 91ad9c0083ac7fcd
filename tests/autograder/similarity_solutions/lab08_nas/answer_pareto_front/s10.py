def pareto_front(points):
    n = len(points)
    out = []
    i = 0
    while i < n:
        lat_i, acc_i = points[i]
        j = 0
        ok = True
        while j < n and ok:
            lat_j, acc_j = points[j]
            if (lat_j <= lat_i and acc_j >= acc_i) and (lat_j < lat_i or acc_j > acc_i):
                ok = False
            j += 1
        if ok:
            out.append(i)
        i += 1
    return out
