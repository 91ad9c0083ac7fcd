def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    # design matrix X: one row [MACs, params, layers, 1] per measured architecture
    X = []
    for arch in archs:
        X.append((count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1))
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(latencies, dtype=np.float64)

    # divide each column by its largest |value| (MACs ~1e6, layers ~10): better conditioned
    scale = np.abs(X).max(axis=0)
    beta_hat = np.linalg.pinv(X / scale) @ y
    beta_hat /= scale

    def predict(arch):
        x = np.array((count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1), dtype=np.float64)
        return float(x @ beta_hat)

    return predict
