import copy
import heapq


def mutate(arch, space, mutation_rate, rng):
    kid = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        kid["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        kid["width_mult"] = rng.choice(space["width_mult"])
    depth = kid["depth"]
    kid["kernel_sizes"] = [kid["kernel_sizes"][i] if i < len(kid["kernel_sizes"]) else rng.choice(space["kernel_size"])
                           for i in range(depth)]
    kid["separable"] = [kid["separable"][i] if i < len(kid["separable"]) else rng.choice(space["separable"])
                        for i in range(depth)]
    for i in range(depth):
        if rng.random() < mutation_rate:
            kid["kernel_sizes"][i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            kid["separable"][i] = rng.choice(space["separable"])
    return kid


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    trace = []
    if generations < 1:
        return trace
    pool = []
    for _ in range(population):
        arch = sample_architecture(rng, space)
        trace.append(arch)
        pool.append((fitness(arch), len(trace), arch))
    for _ in range(1, generations):
        parents = heapq.nlargest(max(1, population // 2), pool, key=lambda e: e[0])
        for _ in range(population):
            _, _, parent = rng.choice(parents)
            child = mutate(parent, space, mutation_rate, rng)
            trace.append(child)
            pool.append((fitness(child), len(trace), child))
        pool = heapq.nlargest(population, pool, key=lambda e: e[0])
    return trace
