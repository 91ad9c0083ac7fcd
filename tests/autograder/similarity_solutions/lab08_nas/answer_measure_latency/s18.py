import warnings


def measure_latency(model, input_shape):
    params = list(model.parameters())
    device = params[0].device if params else torch.device("cpu")
    model.eval()
    x = torch.randn(*input_shape, device=device)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bench warns on noisy machines; the median is still what we want
        stats = hl.bench(model, x, warmup_s=0.1, budget_s=0.5)
    return stats.median_s * 1e3
