def _memory_roof(intensity, bandwidth_gbs):
    # FLOP/byte * GB/s = GFLOP/s
    return intensity * bandwidth_gbs


def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound: the smaller of the compute roof and the memory roof."""
    return min(peak_gflops, _memory_roof(ai, peak_gbs))
