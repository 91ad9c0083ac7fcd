def sample_architecture(rng, space=SPACE):
    return {
        "depth": (d := rng.choice(space["depth"])),
        "width_mult": rng.choice(space["width_mult"]),
        "kernel_sizes": [rng.choice(space["kernel_size"]) for _ in range(d)],
        "separable": [rng.choice(space["separable"]) for _ in range(d)],
    }
