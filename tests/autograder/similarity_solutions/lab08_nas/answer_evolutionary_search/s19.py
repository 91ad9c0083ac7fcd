import copy


def mutate(arch, space, mutation_rate, rng):
    p = mutation_rate
    child = copy.deepcopy(arch)
    new_depth = rng.choice(space["depth"]) if rng.random() < p else child["depth"]
    new_width = rng.choice(space["width_mult"]) if rng.random() < p else child["width_mult"]
    child["depth"], child["width_mult"] = new_depth, new_width

    ks = child["kernel_sizes"]
    sep = child["separable"]
    if new_depth <= len(ks):
        ks, sep = ks[:new_depth], sep[:new_depth]
    else:
        for _ in range(new_depth - len(ks)):
            ks.append(rng.choice(space["kernel_size"]))
            sep.append(rng.choice(space["separable"]))

    for i in range(new_depth):
        if rng.random() < p:
            ks[i] = rng.choice(space["kernel_size"])
    for i in range(new_depth):
        if rng.random() < p:
            sep[i] = rng.choice(space["separable"])
    child["kernel_sizes"], child["separable"] = ks, sep
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    if generations <= 0:
        return []
    evaluated, score = [], []
    for _ in range(population):
        a = sample_architecture(rng, space)
        evaluated.append(a)
        score.append(fitness(a))
    pop = [(score[i], evaluated[i]) for i in range(population)]
    for g in range(generations - 1):
        pop = sorted(pop, key=lambda fs: fs[0], reverse=True)
        parents = pop[:max(1, population // 2)]
        new_members = []
        for c in range(population):
            parent = rng.choice(parents)[1]
            child = mutate(parent, space, mutation_rate, rng)
            f = fitness(child)
            evaluated.append(child)
            new_members.append((f, child))
        pop = sorted(pop + new_members, key=lambda fs: fs[0], reverse=True)[:population]
    return evaluated
