def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity in FLOP/byte: flops / nbytes (Lab 1, Part 5)."""
    bytes_moved = nbytes
    if not bytes_moved:
        # dividing by zero bytes: let python's own error type through, but with a hint
        raise ZeroDivisionError("nbytes must be non-zero")
    ops = float(flops)
    return ops / bytes_moved
