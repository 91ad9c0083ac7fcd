import copy


def mutate(arch, space, mutation_rate, rng):
    res = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        res["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        res["width_mult"] = rng.choice(space["width_mult"])
    # fix the per-block lists to the (possibly new) depth
    res["kernel_sizes"] = res["kernel_sizes"][: res["depth"]]
    res["separable"] = res["separable"][: res["depth"]]
    missing = res["depth"] - len(res["kernel_sizes"])
    res["kernel_sizes"].extend(rng.choice(space["kernel_size"]) for _ in range(missing))
    res["separable"].extend(rng.choice(space["separable"]) for _ in range(missing))
    # per-block mutations
    for i in range(res["depth"]):
        if rng.random() < mutation_rate:
            res["kernel_sizes"][i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            res["separable"][i] = rng.choice(space["separable"])
    return res


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    if generations == 0 or population == 0:
        return []
    archive = []
    survivors = []
    gen = 0
    while gen < generations:
        if gen:
            survivors.sort(key=lambda item: item[1], reverse=True)
            elite = survivors[: max(1, population // 2)]
            newborn = [mutate(rng.choice(elite)[0], space, mutation_rate, rng) for _ in range(population)]
        else:
            newborn = [sample_architecture(rng, space) for _ in range(population)]
        for arch in newborn:
            survivors.append((arch, fitness(arch)))
            archive.append(arch)
        survivors.sort(key=lambda item: item[1], reverse=True)
        survivors = survivors[:population]
        gen += 1
    return archive
