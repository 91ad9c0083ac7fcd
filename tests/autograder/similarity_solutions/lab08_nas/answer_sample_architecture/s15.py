import itertools


def sample_architecture(rng, space=SPACE):
    """Draw an architecture uniformly at random from space with the given random.Random."""
    depth = rng.choice(space["depth"])
    width_mult = rng.choice(space["width_mult"])
    # a uniform draw from all (kernel, flag) pairs = independent uniform kernel and flag
    pairs = list(itertools.product(space["kernel_size"], space["separable"]))
    blocks = [rng.choice(pairs) for _ in range(depth)]
    arch = {
        "depth": depth,
        "width_mult": width_mult,
        "kernel_sizes": [k for k, _ in blocks],
        "separable": [s for _, s in blocks],
    }
    return arch
