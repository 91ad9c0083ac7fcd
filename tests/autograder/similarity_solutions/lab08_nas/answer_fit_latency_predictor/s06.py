def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    cols = [
        [count_macs(a, input_shape) for a in archs],
        [count_params(a) for a in archs],
        [count_layers(a) for a in archs],
        [1] * len(archs),
    ]
    X = np.stack([np.asarray(c, dtype=np.float64) for c in cols], axis=1)
    maxes = np.abs(X).max(axis=0)
    X_scaled = X / maxes
    theta = np.linalg.lstsq(X_scaled, np.asarray(latencies, dtype=np.float64), rcond=None)[0]
    beta = theta / maxes   # back to the original units

    def predict(arch):
        feats = np.array([count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1],
                         dtype=np.float64)
        return float(np.dot(feats, beta))

    return predict
