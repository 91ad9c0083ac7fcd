def random_search(space, fitness, budget, rng):
    archs = [sample_architecture(rng, space) for _ in range(budget)]
    for a in archs:
        fitness(a)          # the score itself is not needed: the caller keeps what it wants
    return archs
