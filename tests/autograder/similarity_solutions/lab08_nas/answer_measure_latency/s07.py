import statistics


def measure_latency(model, input_shape):
    try:
        where = next(model.parameters()).device
    except StopIteration:        # e.g. nn.ReLU(): no parameters
        where = torch.device("cpu")
    data = torch.randn(*input_shape, device=where)
    net = model.eval()
    timed = lambda: net(data)
    with torch.inference_mode():
        samples = hl.bench(timed, warmup_s=0.1, budget_s=0.5).samples_s
    # Stats.samples_s holds one time per call, in seconds
    return statistics.median(float(t) for t in samples) * 1000
