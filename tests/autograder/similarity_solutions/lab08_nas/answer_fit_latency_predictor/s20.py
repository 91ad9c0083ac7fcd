def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    """Fit latency ~ b1*MACs + b2*params + b3*layers + b0 by least squares; return the predictor."""
    archs = list(archs)
    X = np.empty((len(archs), 4), dtype=np.float64)
    X[:, 0] = [count_macs(a, input_shape) for a in archs]
    X[:, 1] = [count_params(a) for a in archs]
    X[:, 2] = [count_layers(a) for a in archs]
    X[:, 3] = 1.0
    norms = np.abs(X).max(axis=0)
    fitted = np.linalg.lstsq(X / norms, np.asarray(latencies, dtype=np.float64), rcond=None)[0]
    weights = fitted / norms

    def predict(arch):
        return float(weights @ np.array([count_macs(arch, input_shape), count_params(arch),
                                         count_layers(arch), 1.0]))

    return predict
