def sample_architecture(rng, space=SPACE):
    depths = space["depth"]
    widths = space["width_mult"]
    kernels = space["kernel_size"]
    kinds = space["separable"]

    depth = depths[rng.randint(0, len(depths) - 1)]
    width = widths[rng.randint(0, len(widths) - 1)]
    kernel_sizes = []
    separable = []
    i = 0
    while i < depth:
        kernel_sizes.append(kernels[rng.randint(0, len(kernels) - 1)])
        separable.append(kinds[rng.randint(0, len(kinds) - 1)])
        i += 1
    return {"depth": depth, "width_mult": width, "kernel_sizes": kernel_sizes, "separable": separable}
