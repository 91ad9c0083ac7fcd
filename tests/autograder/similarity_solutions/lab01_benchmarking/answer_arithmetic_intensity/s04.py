def arithmetic_intensity(flops, nbytes):
    """Arithmetic intensity I = F / Q.

    flops  -- number of floating point operations the kernel does
    nbytes -- bytes moved between memory and the processor
    """
    if nbytes == 0:
        raise ZeroDivisionError("a kernel that moves no bytes has no finite arithmetic intensity")
    return flops / nbytes
