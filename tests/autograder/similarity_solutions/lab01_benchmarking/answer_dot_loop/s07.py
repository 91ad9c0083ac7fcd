from functools import reduce


def dot_loop(a, b):
    # fold the products into one Python float, element by element
    return reduce(lambda running, pair: running + float(pair[0]) * float(pair[1]), zip(a, b), 0.0)
