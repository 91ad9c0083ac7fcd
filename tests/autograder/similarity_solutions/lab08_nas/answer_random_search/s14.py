def random_search(space, fitness, budget, rng):
    """Evaluates exactly `budget` random architectures (one fitness call each)."""
    archs, fits = [], []
    remaining = budget
    while remaining > 0:
        arch = sample_architecture(rng, space)
        fits.append(fitness(arch))
        archs.append(arch)
        remaining -= 1
    return archs
