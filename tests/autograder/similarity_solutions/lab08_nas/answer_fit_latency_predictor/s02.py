def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    macs = np.array([count_macs(a, input_shape) for a in archs], dtype=float)
    params = np.array([count_params(a) for a in archs], dtype=float)
    layers = np.array([count_layers(a) for a in archs], dtype=float)
    X = np.column_stack([macs, params, layers, np.ones(len(archs))])
    col_max = np.max(np.abs(X), axis=0)          # conditioning: every column in [-1, 1]
    coef = np.linalg.lstsq(X / col_max, np.asarray(latencies, dtype=float), rcond=None)[0]

    def predict(arch):
        row = np.array([count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1.0])
        return float((row / col_max) @ coef)

    return predict
