def random_search(space, fitness, budget, rng):
    samples = list(map(lambda _: sample_architecture(rng, space), range(budget)))
    list(map(fitness, samples))
    return samples
