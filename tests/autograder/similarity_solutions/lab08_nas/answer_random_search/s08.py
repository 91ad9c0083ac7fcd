def random_search(space, fitness, budget, rng):
    if budget <= 0:
        return []
    found = []
    for step in range(budget):
        arch = sample_architecture(rng, space)
        fitness(arch)
        found += [arch]
    return found
