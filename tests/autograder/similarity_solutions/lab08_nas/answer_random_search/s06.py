def random_search(space, fitness, budget, rng):
    results = []
    scores = []
    for i in range(budget):
        arch = sample_architecture(rng, space)
        scores.append(fitness(arch))
        results.append(arch)
    # scores are not returned: both searches return only the evaluated architectures
    return results
