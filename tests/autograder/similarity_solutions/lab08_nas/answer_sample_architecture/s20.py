def sample_architecture(rng, space=SPACE):
    def random_block():
        kernel = rng.choice(space["kernel_size"])
        is_separable = rng.choice(space["separable"])
        return kernel, is_separable

    num_blocks = rng.choice(space["depth"])
    multiplier = rng.choice(space["width_mult"])
    kernel_sizes, separable = [], []
    for _ in range(num_blocks):
        k, s = random_block()
        kernel_sizes.append(k)
        separable.append(s)
    return {"depth": num_blocks, "width_mult": multiplier,
            "kernel_sizes": kernel_sizes, "separable": separable}
