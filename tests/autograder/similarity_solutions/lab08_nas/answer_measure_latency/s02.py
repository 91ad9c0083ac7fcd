def measure_latency(model, input_shape):
    first = next(iter(model.parameters()), None)
    dev = first.device if first is not None else torch.device("cpu")
    model.eval()
    inp = torch.randn(*input_shape, device=dev)
    with torch.inference_mode():
        res = hl.bench(lambda: model(inp), warmup_s=hl.pick(0.1, 0.02), budget_s=hl.pick(0.5, 0.1))
    return 1000 * res.median_s
