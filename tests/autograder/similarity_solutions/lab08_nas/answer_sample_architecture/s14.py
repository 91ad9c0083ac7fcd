def sample_architecture(rng, space=SPACE):
    n = rng.choice(space["depth"])
    mult = rng.choice(space["width_mult"])
    ksizes = list(map(lambda _: rng.choice(space["kernel_size"]), range(n)))
    dw = list(map(lambda _: rng.choice(space["separable"]), range(n)))
    return {"depth": n, "width_mult": mult, "kernel_sizes": ksizes, "separable": dw}
