def random_search(space, fitness, budget, rng):
    return [arch for arch in (sample_architecture(rng, space) for _ in range(budget)) if fitness(arch) or True]
