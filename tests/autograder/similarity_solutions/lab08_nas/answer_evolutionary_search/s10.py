def mutate(arch, space, mutation_rate, rng):
    depth = arch["depth"]
    width = arch["width_mult"]
    if rng.random() < mutation_rate:
        depth = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        width = rng.choice(space["width_mult"])
    kernels = list(arch["kernel_sizes"][:depth])
    seps = list(arch["separable"][:depth])
    while len(kernels) < depth:
        kernels.append(rng.choice(space["kernel_size"]))
        seps.append(rng.choice(space["separable"]))
    for i in range(depth):
        if rng.random() < mutation_rate:
            kernels[i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            seps[i] = rng.choice(space["separable"])
    # a fresh dict with fresh lists: the parent is never touched
    return {"depth": depth, "width_mult": width, "kernel_sizes": kernels, "separable": seps}


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    if generations <= 0:
        return []
    gen0 = [sample_architecture(rng, space) for _ in range(population)]
    fits = [fitness(a) for a in gen0]
    history = list(gen0)
    pop = list(zip(fits, range(len(gen0)), gen0))   # the index breaks ties without comparing dicts
    for _ in range(generations - 1):
        pop.sort(key=lambda t: (-t[0], t[1]))
        parents = [t[2] for t in pop[: max(1, population // 2)]]
        for _ in range(population):
            child = mutate(rng.choice(parents), space, mutation_rate, rng)
            pop.append((fitness(child), len(history), child))
            history.append(child)
        pop.sort(key=lambda t: (-t[0], t[1]))
        pop = pop[:population]
    return history
