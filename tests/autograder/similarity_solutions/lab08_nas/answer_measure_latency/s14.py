def measure_latency(model, input_shape):
    with torch.no_grad():
        model.eval()
        params = list(model.parameters())
        device = torch.device("cpu") if not params else params[0].device
        x = torch.randn(*input_shape, device=device)
        stats = hl.bench(model, x, warmup_s=0.1, budget_s=0.5)
    return 1000.0 * stats.median_s
