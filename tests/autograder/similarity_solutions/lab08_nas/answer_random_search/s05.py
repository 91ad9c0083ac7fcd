def random_search(space, fitness, budget, rng):
    """Sample, evaluate, repeat `budget` times; return the architectures in order."""
    out = []
    n = 0
    while n < budget:
        a = sample_architecture(rng, space)
        _ = fitness(a)
        out.append(a)
        n += 1
    return out
