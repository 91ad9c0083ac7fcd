import itertools


def random_search(space, fitness, budget, rng):
    draws = (sample_architecture(rng, space) for _ in itertools.repeat(None, budget))
    evaluated = []
    for arch in draws:
        fitness(arch)
        evaluated.append(arch)
    return evaluated
