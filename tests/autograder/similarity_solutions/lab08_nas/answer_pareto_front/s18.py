def pareto_front(points):
    # sweep from the most accurate down: a point survives when it is faster than every more accurate point
    by_acc = sorted(range(len(points)), key=lambda i: (-points[i][1], points[i][0]))
    front = []
    fastest_better = float("inf")   # lowest latency among strictly more accurate points
    k = 0
    while k < len(by_acc):
        acc = points[by_acc[k]][1]
        group = []
        while k < len(by_acc) and points[by_acc[k]][1] == acc:
            group.append(by_acc[k])
            k += 1
        lowest = min(points[i][0] for i in group)
        if lowest < fastest_better:
            front += [i for i in group if points[i][0] == lowest]
            fastest_better = lowest
    return sorted(front)
