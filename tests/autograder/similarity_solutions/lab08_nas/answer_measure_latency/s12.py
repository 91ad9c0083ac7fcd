def measure_latency(model, input_shape):
    """Inference latency (ms): eval mode, no autograd, median over hl.bench's repeats."""
    devices = {p.device for p in model.parameters()}
    device = devices.pop() if devices else torch.device("cpu")
    model.eval()
    x = torch.randn(tuple(input_shape)).to(device)
    with torch.inference_mode():
        stats = hl.bench(model.__call__, x, warmup_s=0.1, budget_s=0.5)
    return stats.median_s * 1000.0
