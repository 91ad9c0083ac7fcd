def measure_latency(model, input_shape):
    params = tuple(model.parameters())
    device = params[0].device if params else torch.device("cpu")
    model.train(False)   # same as eval()
    x = torch.randn(*input_shape, device=device)
    with torch.set_grad_enabled(False):
        stats = hl.bench(model, x, warmup_s=0.1, budget_s=0.45)
    ms = stats.median_s * 1e3
    return ms
