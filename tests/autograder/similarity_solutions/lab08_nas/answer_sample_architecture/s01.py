def sample_architecture(rng, space=SPACE):
    """A random architecture from `space` (Lab 8, Part 1).

    rng: a random.Random. Returns {"depth": d, "width_mult": w, "kernel_sizes": [k_0..k_{d-1}],
    "separable": [s_0..s_{d-1}]}: d and w drawn uniformly from space["depth"] and space["width_mult"],
    then each block's kernel size and separable flag drawn independently.
    """
    depth = rng.choice(space["depth"])
    width_mult = rng.choice(space["width_mult"])
    kernel_sizes = [rng.choice(space["kernel_size"]) for _ in range(depth)]
    separable = [rng.choice(space["separable"]) for _ in range(depth)]
    return {"depth": depth, "width_mult": width_mult, "kernel_sizes": kernel_sizes, "separable": separable}
