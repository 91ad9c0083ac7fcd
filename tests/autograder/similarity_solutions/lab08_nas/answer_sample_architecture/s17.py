def sample_architecture(rng, space=SPACE):
    # NOTE: must use rng, not the random module, so a seeded rng is reproducible
    depth = rng.choices(space["depth"], k=1)[0]
    width_mult = rng.choices(space["width_mult"], k=1)[0]
    kernel_sizes = [rng.choices(space["kernel_size"], k=1)[0] for _ in range(depth)]
    separable = [rng.choices(space["separable"], k=1)[0] for _ in range(depth)]
    return {"depth": depth, "width_mult": width_mult,
            "kernel_sizes": kernel_sizes, "separable": separable}
