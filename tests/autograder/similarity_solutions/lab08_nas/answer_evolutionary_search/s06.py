from copy import deepcopy


def mutate(arch, space, mutation_rate, rng):
    c = deepcopy(arch)
    flip = lambda: rng.random() < mutation_rate
    if flip():
        c["depth"] = rng.choice(space["depth"])
    if flip():
        c["width_mult"] = rng.choice(space["width_mult"])
    old = len(c["kernel_sizes"])
    new = c["depth"]
    if new < old:
        c["kernel_sizes"], c["separable"] = c["kernel_sizes"][:new], c["separable"][:new]
    for _ in range(new - old):
        c["kernel_sizes"].append(rng.choice(space["kernel_size"]))
        c["separable"].append(rng.choice(space["separable"]))
    for j in range(new):
        if flip():
            c["kernel_sizes"][j] = rng.choice(space["kernel_size"])
        if flip():
            c["separable"][j] = rng.choice(space["separable"])
    return c


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    budget = population * generations
    evaluated, fit = [], []
    while len(evaluated) < min(population, budget):
        a = sample_architecture(rng, space)
        fit.append(fitness(a))
        evaluated.append(a)
    current = list(range(len(evaluated)))     # indices of the current population
    while len(evaluated) < budget:
        current.sort(key=lambda i: fit[i], reverse=True)
        parents = current[:max(1, len(current) // 2)]
        start = len(evaluated)
        for _ in range(population):
            kid = mutate(evaluated[rng.choice(parents)], space, mutation_rate, rng)
            fit.append(fitness(kid))
            evaluated.append(kid)
        current = sorted(current + list(range(start, len(evaluated))), key=lambda i: fit[i], reverse=True)
        current = current[:population]
    return evaluated
