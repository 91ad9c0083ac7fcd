def sample_architecture(rng, space=SPACE):
    """Uniform depth and width, then independent per-block kernel sizes and separable flags."""
    depth_options = list(space["depth"])
    depth = rng.choice(depth_options)
    arch = dict(depth=depth, width_mult=rng.choice(list(space["width_mult"])))
    arch.update(kernel_sizes=[rng.choice(space["kernel_size"]) for b in range(depth)])
    arch.update(separable=[rng.choice(space["separable"]) for b in range(depth)])
    return arch
