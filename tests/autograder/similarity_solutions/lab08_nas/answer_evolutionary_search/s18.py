import copy


def mutate(arch, space, mutation_rate, rng):
    def resample(key, options):
        if rng.random() < mutation_rate:
            child[key] = rng.choice(options)

    child = copy.deepcopy(arch)
    resample("depth", space["depth"])
    resample("width_mult", space["width_mult"])
    depth = child["depth"]
    if depth < len(child["kernel_sizes"]):
        del child["kernel_sizes"][depth:], child["separable"][depth:]
    while depth > len(child["kernel_sizes"]):
        child["kernel_sizes"].append(rng.choice(space["kernel_size"]))
        child["separable"].append(rng.choice(space["separable"]))
    for block in range(depth):
        for key, options in (("kernel_sizes", space["kernel_size"]), ("separable", space["separable"])):
            if rng.random() < mutation_rate:
                child[key][block] = rng.choice(options)
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    if generations < 1:
        return evaluated
    fitness_of = []

    def evaluate(arch):
        evaluated.append(arch)
        fitness_of.append(fitness(arch))
        return len(evaluated) - 1

    pop = [evaluate(sample_architecture(rng, space)) for _ in range(population)]
    for _ in range(1, generations):
        pop.sort(key=lambda i: fitness_of[i], reverse=True)
        parents = pop[:max(1, len(pop) // 2)]
        pop += [evaluate(mutate(evaluated[rng.choice(parents)], space, mutation_rate, rng))
                for _ in range(population)]
        pop.sort(key=lambda i: fitness_of[i], reverse=True)
        pop = pop[:population]
    return evaluated
