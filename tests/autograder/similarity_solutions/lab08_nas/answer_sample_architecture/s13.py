def sample_architecture(rng, space=SPACE):
    def choose(options):
        shuffled = list(options)
        rng.shuffle(shuffled)   # a uniform permutation; its first element is a uniform choice
        return shuffled[0]

    depth = choose(space["depth"])
    width = choose(space["width_mult"])
    kernel_sizes = [choose(space["kernel_size"]) for _ in range(depth)]
    separable = [choose(space["separable"]) for _ in range(depth)]
    return {"depth": depth, "width_mult": width, "kernel_sizes": kernel_sizes, "separable": separable}
