def random_search(space, fitness, budget, rng):
    log = {}
    for t in range(budget):
        a = sample_architecture(rng, space)
        log[t] = (a, fitness(a))
    return [log[t][0] for t in range(budget)]
