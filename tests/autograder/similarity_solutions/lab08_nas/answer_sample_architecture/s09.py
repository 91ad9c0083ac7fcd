def _draw(rng, options, n=None):
    """One uniform choice, or a list of n independent ones."""
    if n is None:
        return rng.choice(options)
    return [rng.choice(options) for _ in range(n)]


def sample_architecture(rng, space=SPACE):
    d = _draw(rng, space["depth"])
    w = _draw(rng, space["width_mult"])
    return {"depth": d, "width_mult": w,
            "kernel_sizes": _draw(rng, space["kernel_size"], d),
            "separable": _draw(rng, space["separable"], d)}
