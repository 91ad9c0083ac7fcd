def measure_latency(model, input_shape):
    has_params = any(True for _ in model.parameters())
    device = next(model.parameters()).device if has_params else torch.device("cpu")
    model.eval()
    x = torch.randn(*input_shape, device=device)
    grad_before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        stats = hl.bench(model, x, warmup_s=0.1, budget_s=0.5)
    finally:
        torch.set_grad_enabled(grad_before)
    return stats.median_s * 1000
