def strong_scaling_efficiency(t_serial, t_parallel, p):
    """E(p) = speedup(p) / p."""
    sp = t_serial / t_parallel
    eff = sp / p
    return float(eff)
