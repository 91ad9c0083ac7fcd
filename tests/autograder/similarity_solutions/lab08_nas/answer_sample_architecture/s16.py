def sample_architecture(rng, space=SPACE):
    keys = ("depth", "width_mult", "kernel_sizes", "separable")
    d = rng.choice(space["depth"])
    values = (
        d,
        rng.choice(space["width_mult"]),
        [rng.choice(space["kernel_size"]) for _ in range(d)],
        [rng.choice(space["separable"]) for _ in range(d)],
    )
    return dict(zip(keys, values))
