import copy


def mutate(arch, space, mutation_rate, rng):
    def maybe(value, options):
        """Redraw value from options with probability mutation_rate."""
        return rng.choice(options) if rng.random() < mutation_rate else value

    m = copy.deepcopy(arch)
    m["depth"] = maybe(m["depth"], space["depth"])
    m["width_mult"] = maybe(m["width_mult"], space["width_mult"])
    d = m["depth"]
    ks = m["kernel_sizes"][:d]
    sp = m["separable"][:d]
    for _ in range(len(ks), d):
        ks.append(rng.choice(space["kernel_size"]))
        sp.append(rng.choice(space["separable"]))
    m["kernel_sizes"] = [maybe(k, space["kernel_size"]) for k in ks]
    m["separable"] = [maybe(s, space["separable"]) for s in sp]
    return m


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    if population * generations == 0:
        return []
    log = []

    def score(arch):
        log.append(arch)
        return fitness(arch)

    # generation 0: exactly what random search would evaluate first
    pop = [(a, score(a)) for a in (sample_architecture(rng, space) for _ in range(population))]
    for _ in range(generations - 1):
        pop.sort(key=lambda t: t[1], reverse=True)
        parents = [a for a, _ in pop[: population // 2 or 1]]
        children = [mutate(rng.choice(parents), space, mutation_rate, rng) for _ in range(population)]
        pop = pop + [(c, score(c)) for c in children]
        pop.sort(key=lambda t: t[1], reverse=True)
        del pop[population:]
    return log
