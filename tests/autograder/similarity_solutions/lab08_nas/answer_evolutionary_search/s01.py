import copy


def mutate(arch, space, mutation_rate, rng):
    """A mutated deep copy of `arch` (Lab 8, Part 4); the rules are in the text above."""
    child = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        child["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        child["width_mult"] = rng.choice(space["width_mult"])
    d = child["depth"]
    child["kernel_sizes"] = child["kernel_sizes"][:d]
    child["separable"] = child["separable"][:d]
    while len(child["kernel_sizes"]) < d:
        child["kernel_sizes"].append(rng.choice(space["kernel_size"]))
        child["separable"].append(rng.choice(space["separable"]))
    for i in range(d):
        if rng.random() < mutation_rate:
            child["kernel_sizes"][i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            child["separable"][i] = rng.choice(space["separable"])
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    """Evolutionary search (Lab 8, Part 4): `population * generations` fitness calls.

    Generation 0 is random; each next generation mutates parents drawn from the best half and keeps the
    best `population` of parents and children. Returns every evaluated architecture in evaluation order.
    """
    if generations < 1:
        return []
    evaluated = []
    current = []                      # (fitness, arch) pairs
    for _ in range(population):
        arch = sample_architecture(rng, space)
        current.append((fitness(arch), arch))
        evaluated.append(arch)
    for _ in range(generations - 1):
        current.sort(key=lambda pair: pair[0], reverse=True)
        parents = [arch for _, arch in current[:max(1, len(current) // 2)]]
        children = []
        for _ in range(population):
            child = mutate(rng.choice(parents), space, mutation_rate, rng)
            children.append((fitness(child), child))
            evaluated.append(child)
        current = sorted(current + children, key=lambda pair: pair[0], reverse=True)[:population]
    return evaluated
