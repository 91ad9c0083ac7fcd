def pareto_front(points):
    idx = []
    for i in range(len(points)):
        l_i, a_i = points[i][0], points[i][1]
        beaten = [j for j in range(len(points))
                  if points[j][0] <= l_i and points[j][1] >= a_i
                  and (points[j][0] < l_i or points[j][1] > a_i)]
        if len(beaten) == 0:
            idx.append(i)
    return idx
