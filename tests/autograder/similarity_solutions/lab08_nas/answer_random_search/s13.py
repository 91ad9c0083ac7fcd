def random_search(space, fitness, budget, rng):
    evaluated = [None] * budget
    for k in range(budget):
        evaluated[k] = sample_architecture(rng, space)
        fitness(evaluated[k])
    return evaluated
