def measure_latency(model, input_shape):
    params = list(model.parameters())
    device = params[0].device if params else torch.device("cpu")
    model = model.eval()
    x = torch.randn(*input_shape).to(device)

    def forward():
        with torch.no_grad():
            return model(x)

    timing = hl.bench(forward, budget_s=0.4, warmup_s=0.1)
    return timing.median_s * 1000.0
