def sample_architecture(rng, space=SPACE):
    """Random member of the search space, drawn only with rng."""

    def pick(options):
        # uniform index into the list of options
        return options[rng.randrange(len(options))]

    n_blocks = pick(space["depth"])
    arch = {"depth": n_blocks, "width_mult": pick(space["width_mult"])}
    arch["kernel_sizes"] = [pick(space["kernel_size"]) for _ in range(n_blocks)]
    arch["separable"] = [pick(space["separable"]) for _ in range(n_blocks)]
    return arch
