PER_BLOCK_KEYS = {"kernel_sizes": "kernel_size", "separable": "separable"}


def sample_architecture(rng, space=SPACE):
    # global choices
    result = {"depth": rng.choice(space["depth"]), "width_mult": rng.choice(space["width_mult"])}
    # per-block choices, drawn independently for every block
    for arch_key, space_key in PER_BLOCK_KEYS.items():
        result[arch_key] = [rng.choice(space[space_key]) for _ in range(result["depth"])]
    return result
