def random_search(space, fitness, budget, rng):
    tried = []
    for _ in range(budget):
        tried.append(sample_architecture(rng, space))
        fitness(tried[-1])
    return tried
