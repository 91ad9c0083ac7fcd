def _copy_arch(arch):
    # deep copy: new dict, new per-block lists
    return {key: (list(val) if isinstance(val, list) else val) for key, val in arch.items()}


def mutate(arch, space, mutation_rate, rng):
    child = _copy_arch(arch)
    if rng.random() < mutation_rate:
        child["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        child["width_mult"] = rng.choice(space["width_mult"])
    while len(child["kernel_sizes"]) > child["depth"]:
        child["kernel_sizes"].pop()
        child["separable"].pop()
    while len(child["kernel_sizes"]) < child["depth"]:
        child["kernel_sizes"].append(rng.choice(space["kernel_size"]))
        child["separable"].append(rng.choice(space["separable"]))
    for i in range(child["depth"]):
        if rng.random() < mutation_rate:
            child["kernel_sizes"][i] = rng.choice(space["kernel_size"])
    for i in range(child["depth"]):
        if rng.random() < mutation_rate:
            child["separable"][i] = rng.choice(space["separable"])
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    all_evaluated = []
    if generations == 0:
        return all_evaluated
    pop = []
    for _ in range(population):
        a = sample_architecture(rng, space)
        pop.append({"arch": a, "fit": fitness(a)})
        all_evaluated.append(a)
    n_parents = max(1, population // 2)
    for generation in range(1, generations):
        pop.sort(key=lambda m: -m["fit"])
        parents = pop[:n_parents]
        offspring = []
        for _ in range(population):
            c = mutate(rng.choice(parents)["arch"], space, mutation_rate, rng)
            offspring.append({"arch": c, "fit": fitness(c)})
            all_evaluated.append(c)
        pop = sorted(pop + offspring, key=lambda m: -m["fit"])[:population]
    return all_evaluated
