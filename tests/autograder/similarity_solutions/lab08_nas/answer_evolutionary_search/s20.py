import copy
from operator import itemgetter


def mutate(arch, space, mutation_rate, rng):
    mutant = copy.deepcopy(arch)
    if rng.random() < mutation_rate:
        mutant["depth"] = rng.choice(space["depth"])
    if rng.random() < mutation_rate:
        mutant["width_mult"] = rng.choice(space["width_mult"])
    n = mutant["depth"]
    for key, choices in (("kernel_sizes", space["kernel_size"]), ("separable", space["separable"])):
        genes = mutant[key][:n]
        genes.extend(rng.choice(choices) for _ in range(n - len(genes)))
        mutant[key] = genes
    for i in range(n):
        if rng.random() < mutation_rate:
            mutant["kernel_sizes"][i] = rng.choice(space["kernel_size"])
        if rng.random() < mutation_rate:
            mutant["separable"][i] = rng.choice(space["separable"])
    return mutant


def evolutionary_search(space, fitness, population, generations, mutation_rate, rng):
    evaluated = []
    by_score = itemgetter(0)

    def score_all(archs):
        evaluated.extend(archs)
        return [(fitness(a), a) for a in archs]

    def evolve(ranked, generations_left):
        # ranked: the current population as (fitness, arch), best first
        if generations_left == 0:
            return
        parents = ranked[:max(1, population // 2)]
        children = [mutate(rng.choice(parents)[1], space, mutation_rate, rng) for _ in range(population)]
        merged = sorted(ranked + score_all(children), key=by_score, reverse=True)
        evolve(merged[:population], generations_left - 1)

    if generations > 0:
        first = score_all([sample_architecture(rng, space) for _ in range(population)])
        evolve(sorted(first, key=by_score, reverse=True), generations - 1)
    return evaluated
