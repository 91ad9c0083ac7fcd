def dot_loop(a, b):
    def term(i):
        # one product, both factors promoted to float64 first
        return float(a[i]) * float(b[i])

    acc = 0.0
    for i in range(len(a)):
        acc += term(i)
    return acc
