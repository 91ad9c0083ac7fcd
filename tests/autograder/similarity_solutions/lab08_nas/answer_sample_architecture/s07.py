def sample_architecture(rng, space=SPACE):
    # rng.sample(seq, 1) returns a one-element list drawn uniformly
    one = lambda values: rng.sample(list(values), 1)[0]
    nblocks = one(space["depth"])
    wm = one(space["width_mult"])
    return {"depth": nblocks,
            "width_mult": wm,
            "kernel_sizes": [one(space["kernel_size"]) for i in range(nblocks)],
            "separable": [one(space["separable"]) for i in range(nblocks)]}
