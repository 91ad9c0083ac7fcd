def measure_latency(model, input_shape):
    device = torch.device("cpu")
    for p in model.parameters():
        device = p.device
        break
    model.eval()
    x = torch.randn(*input_shape, device=device)

    @torch.no_grad()
    def infer():
        model(x)

    return hl.bench(infer, warmup_s=0.1, budget_s=0.5).median_s * 1e3
