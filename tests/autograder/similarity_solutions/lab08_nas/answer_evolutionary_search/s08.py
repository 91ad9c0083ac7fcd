import copy


def _redraw(rng, p):
    return rng.random() < p


def mutate(arch, space, mutation_rate, rng):
    a = copy.deepcopy(arch)
    if _redraw(rng, mutation_rate):
        a["depth"] = rng.choice(space["depth"])
    if _redraw(rng, mutation_rate):
        a["width_mult"] = rng.choice(space["width_mult"])
    grow = a["depth"] - len(a["kernel_sizes"])
    if grow < 0:
        a["kernel_sizes"] = a["kernel_sizes"][: a["depth"]]
        a["separable"] = a["separable"][: a["depth"]]
    else:
        for _ in range(grow):
            a["kernel_sizes"].append(rng.choice(space["kernel_size"]))
            a["separable"].append(rng.choice(space["separable"]))
    for idx in range(a["depth"]):
        if _redraw(rng, mutation_rate):
            a["kernel_sizes"][idx] = rng.choice(space["kernel_size"])
        if _redraw(rng, mutation_rate):
            a["separable"][idx] = rng.choice(space["separable"])
    return a


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    if generations < 1:
        return []
    scores = {}                 # id(arch) -> fitness; the architectures stay alive in `seen`
    seen = []

    def ev(arch):
        scores[id(arch)] = fitness(arch)
        seen.append(arch)
        return arch

    members = random_search(space, ev, population, rng)      # generation 0 = random search
    by_fitness = lambda arch: scores[id(arch)]
    for _ in range(generations - 1):
        members = sorted(members, key=by_fitness, reverse=True)
        parents = members[:max(1, population // 2)]
        kids = [ev(mutate(rng.choice(parents), space, mutation_rate, rng)) for _ in range(population)]
        members = sorted(members + kids, key=by_fitness, reverse=True)[:population]
    return seen
