def sample_architecture(rng, space=SPACE):
    arch = {}
    arch["depth"] = rng.choice(space["depth"])
    arch["width_mult"] = rng.choice(space["width_mult"])
    arch["kernel_sizes"] = []
    arch["separable"] = []
    for _ in range(arch["depth"]):
        arch["kernel_sizes"].append(rng.choice(space["kernel_size"]))
    for _ in range(arch["depth"]):
        arch["separable"].append(rng.choice(space["separable"]))
    return arch
