def measure_latency(model, input_shape):
    p = next(model.parameters(), None)
    device = torch.device("cpu") if p is None else p.device
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        stats = hl.bench(model, x, warmup_s=0.05, budget_s=0.5, name="forward")
    samples_ms = np.asarray(stats.samples_s) * 1000
    return float(np.median(samples_ms))
