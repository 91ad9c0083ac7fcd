def arithmetic_intensity(flops: float, nbytes: float) -> float:
    """Return the arithmetic intensity (FLOP per byte)."""
    work = flops
    traffic = nbytes
    return work / traffic
