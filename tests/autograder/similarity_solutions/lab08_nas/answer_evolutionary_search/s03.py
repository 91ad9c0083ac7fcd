import copy
import heapq


def mutate(arch, space, mutation_rate, rng):
    p = mutation_rate
    out = copy.deepcopy(arch)
    if rng.uniform(0.0, 1.0) < p:
        out["depth"] = rng.choice(space["depth"])
    if rng.uniform(0.0, 1.0) < p:
        out["width_mult"] = rng.choice(space["width_mult"])
    n = out["depth"]
    if n < len(out["kernel_sizes"]):
        out["kernel_sizes"] = out["kernel_sizes"][:n]
        out["separable"] = out["separable"][:n]
    else:
        extra = n - len(out["kernel_sizes"])
        out["kernel_sizes"] += [rng.choice(space["kernel_size"]) for _ in range(extra)]
        out["separable"] += [rng.choice(space["separable"]) for _ in range(extra)]
    out["kernel_sizes"] = [rng.choice(space["kernel_size"]) if rng.uniform(0.0, 1.0) < p else k
                           for k in out["kernel_sizes"]]
    out["separable"] = [rng.choice(space["separable"]) if rng.uniform(0.0, 1.0) < p else s
                        for s in out["separable"]]
    return out


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    members = []
    for g in range(generations):
        if g == 0:
            newcomers = [sample_architecture(rng, space) for _ in range(population)]
        else:
            best_half = heapq.nlargest(max(1, population // 2), members, key=lambda m: m[0])
            newcomers = [mutate(rng.choice(best_half)[1], space, mutation_rate, rng) for _ in range(population)]
        scored = [(fitness(a), a) for a in newcomers]
        evaluated.extend(newcomers)
        members = heapq.nlargest(population, members + scored, key=lambda m: m[0])
    return evaluated
