def measure_latency(model, input_shape):
    model.eval()
    try:
        device = next(model.parameters()).device
    except StopIteration:
        device = torch.device("cpu")
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        s = hl.bench(
            model,
            x,
            name=type(model).__name__,
            warmup_s=hl.pick(0.1, 0.02),
            budget_s=hl.pick(0.5, 0.1),
        )
    # Stats are in seconds; report milliseconds
    return s.median_s * 1e3
