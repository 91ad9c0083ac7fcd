def sample_architecture(rng, space=SPACE):
    """A random architecture from `space`; only rng's methods are used, so seeding rng reproduces it."""
    def uniform_from(seq):
        seq = list(seq)
        idx = int(rng.random() * len(seq))
        return seq[min(idx, len(seq) - 1)]

    depth = uniform_from(space["depth"])
    width_mult = uniform_from(space["width_mult"])
    ks = []
    sep = []
    for _ in range(depth):
        ks += [uniform_from(space["kernel_size"])]
        sep += [uniform_from(space["separable"])]
    return {"depth": depth, "width_mult": width_mult, "kernel_sizes": ks, "separable": sep}
