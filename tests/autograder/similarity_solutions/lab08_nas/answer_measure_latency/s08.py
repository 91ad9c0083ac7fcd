def _model_device(model):
    """Device of the first parameter; CPU for parameter-free modules."""
    for param in model.parameters():
        return param.device
    return torch.device("cpu")


def measure_latency(model, input_shape):
    device = _model_device(model)
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        result = hl.bench(model, x, warmup_s=hl.pick(0.1, 0.03), budget_s=hl.pick(0.5, 0.15))
    return result.median_s * 1000
