def arithmetic_intensity(flops, nbytes):
    """How many floating-point operations are done per byte of memory traffic."""
    try:
        return flops / nbytes
    except ZeroDivisionError:
        raise ZeroDivisionError("nbytes is 0: arithmetic intensity undefined") from None
