import copy


def mutate(arch, space, mutation_rate, rng):
    result = copy.deepcopy(arch)
    p = mutation_rate
    if rng.random() < p:
        result["depth"] = rng.choice(space["depth"])
    if rng.random() < p:
        result["width_mult"] = rng.choice(space["width_mult"])
    depth = result["depth"]
    old_depth = len(result["kernel_sizes"])
    blocks = list(zip(result["kernel_sizes"], result["separable"]))[:depth]
    blocks += [(rng.choice(space["kernel_size"]), rng.choice(space["separable"])) for _ in range(depth - old_depth)]
    new_blocks = []
    for k, s in blocks:
        if rng.random() < p:
            k = rng.choice(space["kernel_size"])
        if rng.random() < p:
            s = rng.choice(space["separable"])
        new_blocks.append((k, s))
    result["kernel_sizes"] = [k for k, _ in new_blocks]
    result["separable"] = [s for _, s in new_blocks]
    return result


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluations = []                  # (arch, fitness) in evaluation order

    def run(arch):
        evaluations.append((arch, fitness(arch)))
        return evaluations[-1]

    if generations > 0:
        pop = [run(sample_architecture(rng, space)) for _ in range(population)]
        for _ in range(generations - 1):
            ranking = sorted(pop, key=lambda e: e[1], reverse=True)
            parents = ranking[:max(1, population // 2)]
            offspring = [run(mutate(rng.choice(parents)[0], space, mutation_rate, rng)) for _ in range(population)]
            pop = sorted(ranking + offspring, key=lambda e: e[1], reverse=True)[:population]
    return [arch for arch, _ in evaluations]
