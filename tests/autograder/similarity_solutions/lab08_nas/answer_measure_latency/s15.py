WARMUP_S = 0.1   # warm-up before timing (first calls allocate memory)
BUDGET_S = 0.5   # time spent on the repeats


def measure_latency(model, input_shape):
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad():
        stats = hl.bench(model, x, warmup_s=hl.pick(WARMUP_S, WARMUP_S / 4), budget_s=hl.pick(BUDGET_S, BUDGET_S / 4))
    return stats.median_s * 1e3
