def random_search(space, fitness, budget, rng):
    candidates = []
    for _ in range(budget):
        candidates.append(sample_architecture(rng, space))
    # evaluate in the same order as they were drawn
    for candidate in candidates:
        fitness(candidate)
    return candidates
