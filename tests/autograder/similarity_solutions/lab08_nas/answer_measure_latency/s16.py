def measure_latency(model, input_shape):
    param = next(model.parameters(), None)
    device = getattr(param, "device", torch.device("cpu"))
    model.eval()
    x = torch.randn(*input_shape, device=device)

    def run_once():
        return model(x)

    with torch.inference_mode():
        stats = hl.bench(run_once, warmup_s=0.1, budget_s=0.5)
    median_ms = stats.median_s * 1e3
    return median_ms
