def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    """Least-squares latency model on [MACs, params, layers, 1] (Lab 8, Part 3).

    archs: architectures; latencies: their measured latencies (ms). Returns predict(arch) -> float (ms).
    """
    def features(arch):
        return [count_macs(arch, input_shape), count_params(arch), count_layers(arch), 1.0]

    X = np.array([features(a) for a in archs], dtype=np.float64)
    y = np.asarray(latencies, dtype=np.float64)
    scale = np.abs(X).max(axis=0)
    beta_scaled, *_ = np.linalg.lstsq(X / scale, y, rcond=None)
    beta = beta_scaled / scale

    def predict(arch):
        return float(np.array(features(arch), dtype=np.float64) @ beta)

    return predict
