def sample_architecture(rng, space=SPACE):
    depth = rng.choice(space["depth"])
    wmult = rng.choice(space["width_mult"])
    per_block = [[rng.choice(space["kernel_size"]), rng.choice(space["separable"])] for _ in range(depth)]
    kernel_sizes, separable = (list(col) for col in zip(*per_block))
    return {"depth": depth, "width_mult": wmult, "kernel_sizes": kernel_sizes, "separable": separable}
