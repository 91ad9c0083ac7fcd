def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    """beta = argmin ||X beta - y||, columns scaled by their max |value| before solving."""
    design = np.array(
        [[count_macs(a, input_shape), count_params(a), count_layers(a), 1.0] for a in archs],
        dtype=float,
    )
    target = np.array(latencies, dtype=float)
    col_scale = np.abs(design).max(0)
    solution, residuals, rank, sv = np.linalg.lstsq(design / col_scale, target, rcond=None)
    beta = solution / col_scale

    def predict(arch):
        x = np.array([count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1.0])
        return float(np.dot(x, beta))

    return predict
