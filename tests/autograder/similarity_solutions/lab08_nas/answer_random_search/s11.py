def random_search(space, fitness, budget, rng):
    # Li & Talwalkar (2019): plain random sampling is a strong NAS baseline
    def candidates():
        for _ in range(budget):
            yield sample_architecture(rng, space)

    population = []
    for arch in candidates():
        fitness(arch)
        population.append(arch)
    return population
