def sample_architecture(rng, space=SPACE):
    """Sample depth, width multiplier, then per-block kernel size / separable flag."""
    depth = rng.choice(space["depth"])
    width_mult = rng.choice(space["width_mult"])
    blocks = [(rng.choice(space["kernel_size"]), rng.choice(space["separable"])) for _ in range(depth)]
    kernel_sizes = [k for k, _ in blocks]
    separable = [s for _, s in blocks]
    return {
        "depth": depth,
        "width_mult": width_mult,
        "kernel_sizes": kernel_sizes,
        "separable": separable,
    }
