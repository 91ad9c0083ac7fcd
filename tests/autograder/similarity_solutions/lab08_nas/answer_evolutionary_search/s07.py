import copy


def mutate(arch, space, mutation_rate, rng):
    """Deep copy, then redraw depth / width / each kernel / each flag with probability mutation_rate."""
    child = copy.deepcopy(arch)
    depth_redrawn = rng.random() < mutation_rate
    if depth_redrawn:
        child["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        child["width_mult"] = rng.choice(space["width_mult"])

    kernels, flags = [], []
    for i in range(child["depth"]):
        if i < len(arch["kernel_sizes"]):
            kernels.append(child["kernel_sizes"][i])
            flags.append(child["separable"][i])
        else:  # a new block: random choices
            kernels.append(rng.choice(space["kernel_size"]))
            flags.append(rng.choice(space["separable"]))
    for i in range(len(kernels)):
        if rng.random() < mutation_rate:
            kernels[i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            flags[i] = rng.choice(space["separable"])
    child["kernel_sizes"], child["separable"] = kernels, flags
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    order = []
    if generations <= 0 or population <= 0:
        return order
    scored = []
    for _ in range(population):
        a = sample_architecture(rng, space)
        scored.append([fitness(a), a])
        order.append(a)
    for _gen in range(1, generations):
        scored = sorted(scored, key=lambda s: s[0], reverse=True)
        k = max(1, population // 2)
        for _ in range(population):
            parent = rng.choice(scored[:k])[1]
            kid = mutate(parent, space, mutation_rate, rng)
            scored.append([fitness(kid), kid])
            order.append(kid)
        scored = sorted(scored, key=lambda s: s[0], reverse=True)[:population]
    return order
