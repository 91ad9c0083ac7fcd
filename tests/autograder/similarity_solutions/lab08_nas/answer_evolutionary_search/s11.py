import copy


def mutate(arch, space, mutation_rate, rng):
    coin = lambda: rng.choices([True, False], weights=[mutation_rate, 1 - mutation_rate])[0]
    child = copy.deepcopy(arch)
    if coin():
        child["depth"] = rng.choice(space["depth"])
    if coin():
        child["width_mult"] = rng.choice(space["width_mult"])
    d = child["depth"]
    if len(child["kernel_sizes"]) >= d:
        child["kernel_sizes"] = child["kernel_sizes"][:d]
        child["separable"] = child["separable"][:d]
    else:
        while len(child["kernel_sizes"]) < d:
            child["kernel_sizes"].append(rng.choice(space["kernel_size"]))
            child["separable"].append(rng.choice(space["separable"]))
    child["kernel_sizes"] = [rng.choice(space["kernel_size"]) if coin() else k for k in child["kernel_sizes"]]
    child["separable"] = [rng.choice(space["separable"]) if coin() else s for s in child["separable"]]
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    if not generations:
        return evaluated

    def evaluate_all(archs):
        evaluated.extend(archs)
        return [(fitness(a), a) for a in archs]

    pop = evaluate_all([sample_architecture(rng, space) for _ in range(population)])
    g = 1
    while g < generations:
        pop.sort(key=lambda fa: fa[0], reverse=True)
        best_half = [a for _, a in pop[:max(1, population // 2)]]
        children = [mutate(rng.choice(best_half), space, mutation_rate, rng) for _ in range(population)]
        pop = sorted(pop + evaluate_all(children), key=lambda fa: fa[0], reverse=True)[:population]
        g += 1
    return evaluated
