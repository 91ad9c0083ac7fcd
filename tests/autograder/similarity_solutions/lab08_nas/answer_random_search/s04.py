def random_search(space, fitness, budget, rng):
    def evaluate(arch):
        fitness(arch)
        return arch

    return [evaluate(sample_architecture(rng, space)) for _ in range(budget)]
