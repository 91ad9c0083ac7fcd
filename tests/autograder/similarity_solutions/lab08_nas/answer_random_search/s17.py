def random_search(space, fitness, budget, rng):
    evaluated = []
    best_score, best_arch = None, None      # tracked for printing while debugging
    for _ in range(budget):
        arch = sample_architecture(rng, space)
        score = fitness(arch)
        if best_score is None or score > best_score:
            best_score, best_arch = score, arch
        evaluated.append(arch)
    return evaluated
