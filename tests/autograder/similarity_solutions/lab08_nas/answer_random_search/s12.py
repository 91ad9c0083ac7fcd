def random_search(space, fitness, budget, rng):
    def sample_and_score():
        arch = sample_architecture(rng, space)
        return arch, fitness(arch)

    pairs = [sample_and_score() for _ in range(budget)]
    return [p[0] for p in pairs]
