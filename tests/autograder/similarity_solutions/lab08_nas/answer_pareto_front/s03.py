def pareto_front(points):
    if len(points) == 0:
        return []
    pts = np.asarray(points, dtype=float)
    lat, acc = pts[:, 0], pts[:, 1]
    # dom[i, j]: point j dominates point i
    no_worse = (lat[None, :] <= lat[:, None]) & (acc[None, :] >= acc[:, None])
    better = (lat[None, :] < lat[:, None]) | (acc[None, :] > acc[:, None])
    dom = no_worse & better
    return np.flatnonzero(~dom.any(axis=1)).tolist()
