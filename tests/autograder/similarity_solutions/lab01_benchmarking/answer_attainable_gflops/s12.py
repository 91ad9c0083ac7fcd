def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline: P = min(pi, I*beta)."""
    roofs = {"compute": peak_gflops, "memory": ai * peak_gbs}
    limiting = min(roofs, key=roofs.get)
    return roofs[limiting]
