import json


def mutate(arch, space, mutation_rate, rng):
    new = json.loads(json.dumps(arch))          # cheap deep copy of a JSON-like dict

    def hit():
        return rng.random() < mutation_rate

    if hit():
        new["depth"] = rng.choice(space["depth"])
    if hit():
        new["width_mult"] = rng.choice(space["width_mult"])
    depth = new["depth"]
    ks, sep = new["kernel_sizes"], new["separable"]
    del ks[depth:]
    del sep[depth:]
    for _ in range(depth - len(ks)):
        ks.append(rng.choice(space["kernel_size"]))
    for _ in range(depth - len(sep)):
        sep.append(rng.choice(space["separable"]))
    for b in range(depth):
        if hit():
            ks[b] = rng.choice(space["kernel_size"])
    for b in range(depth):
        if hit():
            sep[b] = rng.choice(space["separable"])
    return new


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    history, scores = [], []

    def evaluate(arch):
        history.append(arch)
        scores.append(fitness(arch))
        return len(history) - 1          # index into history / scores

    if generations <= 0:
        return history
    pop = [evaluate(sample_architecture(rng, space)) for _ in range(population)]
    for gen in range(1, generations):
        ranked = sorted(pop, key=lambda i: scores[i], reverse=True)
        parents = ranked[: max(1, population // 2)]
        kids = [evaluate(mutate(history[rng.choice(parents)], space, mutation_rate, rng))
                for _ in range(population)]
        pop = sorted(ranked + kids, key=lambda i: scores[i], reverse=True)[:population]
    return history
