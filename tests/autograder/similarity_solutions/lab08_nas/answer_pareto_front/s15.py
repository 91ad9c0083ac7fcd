import heapq


def pareto_front(points):
    heap = [(lat, -acc, i) for i, (lat, acc) in enumerate(points)]
    heapq.heapify(heap)
    front = []
    best = None          # (accuracy, latency) of the best point seen so far
    while heap:
        lat, neg_acc, i = heapq.heappop(heap)
        acc = -neg_acc
        if best is None or acc > best[0]:
            best = (acc, lat)
            front.append(i)
        elif acc == best[0] and lat == best[1]:
            front.append(i)
    return sorted(front)
