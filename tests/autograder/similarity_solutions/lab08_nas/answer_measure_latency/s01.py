def measure_latency(model, input_shape):
    """Median latency in milliseconds of model(x), x = torch.randn(*input_shape) on the model's device (Lab 8, Part 2).

    Timed with hl.bench (warm-up, then repeats); eval mode, no autograd graph.
    """
    try:
        device = next(model.parameters()).device
    except StopIteration:
        device = torch.device("cpu")
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        stats = hl.bench(model, x, warmup_s=0.1, budget_s=0.5)
    return stats.median_s * 1e3
