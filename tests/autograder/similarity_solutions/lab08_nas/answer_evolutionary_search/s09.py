import copy


def mutate(arch, space, mutation_rate, rng):
    child = copy.deepcopy(arch)
    for key, options in (("depth", space["depth"]), ("width_mult", space["width_mult"])):
        if rng.random() < mutation_rate:
            child[key] = rng.choice(options)
    d = child["depth"]
    child["kernel_sizes"] = (child["kernel_sizes"] + [rng.choice(space["kernel_size"])
                                                      for _ in range(d - len(child["kernel_sizes"]))])[:d]
    child["separable"] = (child["separable"] + [rng.choice(space["separable"])
                                                for _ in range(d - len(child["separable"]))])[:d]
    for key, options in (("kernel_sizes", space["kernel_size"]), ("separable", space["separable"])):
        for i in range(d):
            if rng.random() < mutation_rate:
                child[key][i] = rng.choice(options)
    return child


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    pop_archs, pop_fit = [], []
    for _ in range(population if generations > 0 else 0):
        a = sample_architecture(rng, space)
        pop_archs.append(a)
        pop_fit.append(fitness(a))
        evaluated.append(a)
    for _ in range(max(0, generations - 1)):
        order = sorted(range(len(pop_archs)), key=lambda i: pop_fit[i], reverse=True)
        parents = [pop_archs[i] for i in order[:max(1, len(order) // 2)]]
        kid_archs, kid_fit = [], []
        for _ in range(population):
            kid = mutate(rng.choice(parents), space, mutation_rate, rng)
            kid_archs.append(kid)
            kid_fit.append(fitness(kid))
            evaluated.append(kid)
        all_archs, all_fit = pop_archs + kid_archs, pop_fit + kid_fit
        keep = sorted(range(len(all_archs)), key=lambda i: all_fit[i], reverse=True)[:population]
        pop_archs = [all_archs[i] for i in keep]
        pop_fit = [all_fit[i] for i in keep]
    return evaluated
