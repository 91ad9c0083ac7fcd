def measure_latency(model, input_shape):
    """Median forward time (ms) for one random input, on whatever device holds the model."""
    params = [p for p in model.parameters()]
    device = params[0].device if len(params) > 0 else torch.device("cpu")
    model.eval()
    sample = torch.randn(input_shape, device=device)
    with torch.no_grad():
        stats = hl.bench(model, sample, warmup_s=0.1, budget_s=0.5, use_cuda=(device.type == "cuda"))
    return float(stats.median_s) * 1e3
