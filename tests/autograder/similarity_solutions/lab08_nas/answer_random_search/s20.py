from collections import deque


def random_search(space, fitness, budget, rng):
    queue = deque(sample_architecture(rng, space) for _ in range(budget))
    done = []
    while queue:
        arch = queue.popleft()
        fitness(arch)
        done.append(arch)
    return done
