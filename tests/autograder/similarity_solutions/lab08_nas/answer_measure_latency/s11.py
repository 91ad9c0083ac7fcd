def measure_latency(model, input_shape):
    for param in model.parameters():
        dev = param.device
        break
    else:
        dev = torch.device("cpu")
    model.eval()
    x = torch.randn(*input_shape, device=dev)
    with torch.no_grad():
        return hl.bench(model, x, warmup_s=0.1, budget_s=0.5, min_repeats=10).median_s * 1000
