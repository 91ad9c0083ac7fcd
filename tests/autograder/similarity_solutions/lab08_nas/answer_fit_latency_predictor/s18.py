def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    macs = [count_macs(a, input_shape) for a in archs]
    par = [count_params(a) for a in archs]
    lay = [count_layers(a) for a in archs]
    X = np.array([macs, par, lay, [1] * len(archs)], dtype=float).T
    s = np.abs(X).max(axis=0)
    beta = np.linalg.lstsq(X / s, np.asarray(latencies, dtype=float), rcond=None)[0] / s

    def predict(arch, _beta=beta, _shape=input_shape):
        x = np.array([count_macs(arch, _shape), count_params(arch), count_layers(arch), 1.0])
        return float(x @ _beta)

    return predict
