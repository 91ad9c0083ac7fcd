def pareto_front(points):
    # scan by latency (ties: higher accuracy first)
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    result = []
    best_acc = best_lat = None
    for i in order:
        lat, acc = points[i]
        if best_acc is None or acc > best_acc:
            best_acc, best_lat = acc, lat
            result.append(i)
        elif acc == best_acc and lat == best_lat:
            result.append(i)        # an exact duplicate of a front point
    result.sort()
    return result
