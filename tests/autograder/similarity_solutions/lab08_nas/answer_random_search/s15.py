def random_search(space, fitness, budget, rng):
    seen = []

    def step(_):
        a = sample_architecture(rng, space)
        fitness(a)
        seen.append(a)

    for i in range(budget):
        step(i)
    return seen
