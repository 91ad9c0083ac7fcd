import copy


def mutate(arch, space, mutation_rate, rng):
    new_arch = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        new_arch["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        new_arch["width_mult"] = rng.choice(space["width_mult"])
    kept = min(new_arch["depth"], len(new_arch["kernel_sizes"]))
    added = new_arch["depth"] - kept
    new_arch["kernel_sizes"] = new_arch["kernel_sizes"][:kept] + [rng.choice(space["kernel_size"]) for _ in range(added)]
    new_arch["separable"] = new_arch["separable"][:kept] + [rng.choice(space["separable"]) for _ in range(added)]
    for i in range(new_arch["depth"]):
        if rng.random() < mutation_rate:
            new_arch["kernel_sizes"][i] = rng.choice(space["kernel_size"])
    for i in range(new_arch["depth"]):
        if rng.random() < mutation_rate:
            new_arch["separable"][i] = rng.choice(space["separable"])
    return new_arch


def _best(scored, n):
    """The n best (fitness, arch) pairs; sorted() is stable, so earlier ones win ties."""
    return sorted(scored, key=lambda fa: fa[0], reverse=True)[:n]


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    if generations <= 0:
        return evaluated
    scored = []
    for _ in range(population):
        arch = sample_architecture(rng, space)
        evaluated.append(arch)
        scored.append((fitness(arch), arch))
    for _ in range(generations - 1):
        parents = _best(scored, max(1, population // 2))
        for _ in range(population):
            child = mutate(rng.choice(parents)[1], space, mutation_rate, rng)
            evaluated.append(child)
            scored.append((fitness(child), child))
        scored = _best(scored, population)
    return evaluated
