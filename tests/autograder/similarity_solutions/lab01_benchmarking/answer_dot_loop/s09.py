def dot_loop(a, b):
    # first build the list of products, then add them up one at a time
    products = [float(a[j]) * float(b[j]) for j in range(len(a))]
    dot = 0.0
    for p in products:
        dot += p
    return dot
