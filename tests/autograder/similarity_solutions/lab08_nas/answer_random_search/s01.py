def random_search(space, fitness, budget, rng):
    """Random search (Lab 8, Part 4): evaluate `budget` architectures sampled from `space` with `rng`.

    Calls fitness exactly `budget` times; returns the evaluated architectures in evaluation order.
    """
    evaluated = []
    for _ in range(budget):
        arch = sample_architecture(rng, space)
        fitness(arch)
        evaluated.append(arch)
    return evaluated
