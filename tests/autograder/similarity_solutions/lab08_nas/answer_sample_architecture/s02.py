def sample_architecture(rng, space=SPACE):
    # depth and width first, then one (kernel, flag) pair per block
    d = rng.choice(space["depth"])
    w = rng.choice(space["width_mult"])
    ks, seps = [], []
    for block in range(d):
        ks.append(rng.choice(space["kernel_size"]))
        seps.append(rng.choice(space["separable"]))
    return {"depth": d, "width_mult": w, "kernel_sizes": ks, "separable": seps}
