def measure_latency(model, input_shape):
    net = model.eval()       # eval() returns the module itself
    try:
        dev = next(net.parameters()).device
    except StopIteration:
        dev = torch.device("cpu")
    inputs = torch.randn(*input_shape, device=dev)
    with torch.no_grad():
        bench = hl.bench(net, inputs, budget_s=0.5, warmup_s=0.1, name="latency")
    return bench.median_s * 1000
