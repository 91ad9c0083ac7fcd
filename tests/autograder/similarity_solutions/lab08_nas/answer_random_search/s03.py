def random_search(space, fitness, budget, rng):
    history = []
    while len(history) < budget:
        candidate = sample_architecture(rng, space)
        score = fitness(candidate)
        history.append((candidate, score))
    return [arch for arch, _ in history]
