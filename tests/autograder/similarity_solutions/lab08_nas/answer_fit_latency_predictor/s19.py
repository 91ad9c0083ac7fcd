def fit_latency_predictor(archs, latencies, input_shape=LATENCY_SHAPE):
    counts = np.array([[count_macs(a, input_shape), count_params(a), count_layers(a)] for a in archs],
                      dtype=np.float64).reshape(len(archs), 3)
    X = np.hstack([counts, np.ones((len(archs), 1))])
    scale = np.abs(X).max(axis=0)
    scaled_beta = np.linalg.lstsq(X / scale, np.asarray(latencies, dtype=np.float64), rcond=None)[0]
    beta = scaled_beta / scale
    intercept, slopes = beta[3], beta[:3]

    def predict(arch):
        c = np.array([count_macs(arch, input_shape), count_params(arch), count_layers(arch)], dtype=np.float64)
        return float(c @ slopes + intercept)

    return predict
