def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity (FLOP/byte) of a kernel doing `flops` operations on `nbytes` bytes."""
    ai = flops
    ai /= nbytes
    return ai
