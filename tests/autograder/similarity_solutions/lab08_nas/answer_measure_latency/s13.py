from functools import partial


def measure_latency(model, input_shape):
    first_param = next(model.parameters(), None)
    device = first_param.device if first_param is not None else torch.device("cpu")
    model.eval()
    call = partial(model, torch.randn(*input_shape, device=device))
    with torch.no_grad():
        timing = hl.bench(call, warmup_s=0.1, budget_s=0.5, max_repeats=500)
    return timing.median_s * 1e3
