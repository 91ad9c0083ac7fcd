import copy


def mutate(arch, space, mutation_rate, rng):
    out = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        out["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        out["width_mult"] = rng.choice(space["width_mult"])
    d = out["depth"]
    ks, ss = out["kernel_sizes"], out["separable"]
    if len(ks) > d:
        ks, ss = ks[:d], ss[:d]
    ks = ks + [rng.choice(space["kernel_size"]) for _ in range(d - len(ks))]
    ss = ss + [rng.choice(space["separable"]) for _ in range(d - len(ss))]
    out["kernel_sizes"] = [k if rng.random() >= mutation_rate else rng.choice(space["kernel_size"]) for k in ks]
    out["separable"] = [s if rng.random() >= mutation_rate else rng.choice(space["separable"]) for s in ss]
    return out


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    """Generation 0 random; then parents = best half, `population` mutated children, keep the best."""
    total = population * generations
    if total <= 0:
        return []
    archs, fits = [], []
    for _ in range(population):
        a = sample_architecture(rng, space)
        archs.append(a)
        fits.append(fitness(a))
    current = list(range(population))
    half = max(1, population // 2)
    for _ in range(generations - 1):
        current.sort(key=lambda i: -fits[i])
        parent_ids = current[:half]
        for _ in range(population):
            a = mutate(archs[rng.choice(parent_ids)], space, mutation_rate, rng)
            current.append(len(archs))
            archs.append(a)
            fits.append(fitness(a))
        current.sort(key=lambda i: -fits[i])
        current = current[:population]
    return archs
