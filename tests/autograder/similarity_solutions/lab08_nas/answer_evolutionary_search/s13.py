import copy


def mutate(arch, space, mutation_rate, rng):
    """Copy, then mutate each gene independently with probability mutation_rate."""
    c = copy.deepcopy(arch)

    def happens():
        return rng.random() < mutation_rate

    if happens():
        c["depth"] = rng.choice(space["depth"])
    if happens():
        c["width_mult"] = rng.choice(space["width_mult"])

    n_old, n_new = len(c["kernel_sizes"]), c["depth"]
    if n_new < n_old:                       # shrink: drop the last blocks
        for key in ("kernel_sizes", "separable"):
            c[key] = c[key][:n_new]
    elif n_new > n_old:                     # grow: random new blocks
        for _ in range(n_new - n_old):
            c["kernel_sizes"].append(rng.choice(space["kernel_size"]))
            c["separable"].append(rng.choice(space["separable"]))

    for i, _ in enumerate(c["kernel_sizes"]):
        if happens():
            c["kernel_sizes"][i] = rng.choice(space["kernel_size"])
    for i, _ in enumerate(c["separable"]):
        if happens():
            c["separable"][i] = rng.choice(space["separable"])
    return c


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    pop = []
    for gen in range(generations):
        if gen == 0:
            batch = [sample_architecture(rng, space) for _ in range(population)]
        else:
            pop.sort(key=lambda x: x[0], reverse=True)
            n_par = max(1, len(pop) // 2)
            batch = [mutate(rng.choice(pop[:n_par])[1], space, mutation_rate, rng) for _ in range(population)]
        new = []
        for arch in batch:
            new.append((fitness(arch), arch))
            evaluated.append(arch)
        pop = sorted(pop + new, key=lambda x: x[0], reverse=True)[:population]
    return evaluated
