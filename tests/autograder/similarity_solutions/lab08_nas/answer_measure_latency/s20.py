def measure_latency(model, input_shape):
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        med_s = hl.bench(model, x, warmup_s=0.08, budget_s=0.5, min_repeats=7).median_s
    return med_s * 1_000
