def pareto_front(points):
    return [
        i for i, (lat, acc) in enumerate(points)
        if not any((l2 < lat and a2 >= acc) or (l2 <= lat and a2 > acc) for l2, a2 in points)
    ]
