def sample_architecture(rng, space=SPACE):
    depth, = rng.choices(space["depth"])
    width, = rng.choices(space["width_mult"])
    # choices(..., k=n) makes n independent uniform draws with replacement
    kernels = rng.choices(space["kernel_size"], k=depth)
    flags = rng.choices(space["separable"], k=depth)
    return dict(depth=depth, width_mult=width, kernel_sizes=list(kernels), separable=list(flags))
