import operator


def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity in FLOP/byte."""
    # same as flops / nbytes
    return operator.truediv(flops, nbytes)
